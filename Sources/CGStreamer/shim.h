#ifndef MEDIANODE_CGSTREAMER_SHIM_H
#define MEDIANODE_CGSTREAMER_SHIM_H
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>

// Wrappers for GStreamer and GLib macros and variadic functions, which Swift cannot import.
// Each one is a thin, allocation-free forwarder; ownership follows the wrapped call.

/// Wrapper for GST_MESSAGE_TYPE, a macro.
static inline GstMessageType mn_message_type(GstMessage *message) { return GST_MESSAGE_TYPE(message); }

/// Wrapper for GST_MESSAGE_SRC, a macro.
static inline GstObject *mn_message_src(GstMessage *message) { return GST_MESSAGE_SRC(message); }

/// Wrapper for gst_message_unref, a static inline Swift sees only on some versions.
static inline void mn_message_unref(GstMessage *message) { gst_message_unref(message); }

/// Wrapper for g_object_set with one string property (variadic).
static inline void mn_object_set_string(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}

/// Wrapper for g_object_set with one gdouble property (variadic).
static inline void mn_object_set_double(gpointer object, const char *name, gdouble value) {
    g_object_set(object, name, value, NULL);
}

/// Wrapper for g_object_set with one gint property (variadic).
static inline void mn_object_set_int(gpointer object, const char *name, gint value) {
    g_object_set(object, name, value, NULL);
}

/// Wrapper for g_object_set with one gboolean property (variadic).
static inline void mn_object_set_bool(gpointer object, const char *name, gboolean value) {
    g_object_set(object, name, value, NULL);
}

/// Wrapper for g_object_set with one object property (variadic); the property takes its own reference.
static inline void mn_object_set_object(gpointer object, const char *name, gpointer value) {
    g_object_set(object, name, value, NULL);
}

/// Wrapper for g_object_get of one gint property (variadic).
static inline gint mn_object_get_int(gpointer object, const char *name) {
    gint value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// Wrapper for g_object_get of one gdouble property (variadic).
static inline gdouble mn_object_get_double(gpointer object, const char *name) {
    gdouble value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// Wrapper for g_signal_connect_data with a destroy notify: g_signal_connect is a macro.
static inline gulong mn_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                       gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

/// Wrapper for g_signal_emit_by_name returning a GstTagList (variadic); used for playbin's get-audio-tags.
static inline GstTagList *mn_playbin_audio_tags(GstElement *playbin, gint stream) {
    GstTagList *tags = NULL;
    g_signal_emit_by_name(playbin, "get-audio-tags", stream, &tags);
    return tags;
}

/// Wrapper for GST_SECOND (a macro of a cast expression).
static inline gint64 mn_gst_second(void) { return GST_SECOND; }

/// Wrapper for GST_CLOCK_TIME_NONE, a macro.
static inline GstClockTime mn_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }

/// Wrapper for GST_ELEMENT_CAST-free unref of any GstObject (gst_object_unref takes gpointer).
static inline void mn_object_unref(gpointer object) { gst_object_unref(object); }

#endif
