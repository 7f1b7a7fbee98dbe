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

/// Wrapper for gst_tag_list_unref, a static inline Swift sees only on some versions.
static inline void mn_tag_list_unref(GstTagList *tags) { gst_tag_list_unref(tags); }

/// Wrapper for gst_caps_unref, a static inline Swift sees only on some versions.
static inline void mn_caps_unref(GstCaps *caps) { gst_caps_unref(caps); }

/// Wrapper for gst_sample_unref, a static inline Swift sees only on some versions.
static inline void mn_sample_unref(GstSample *sample) { gst_sample_unref(sample); }

/// Wrapper for GST_OBJECT_FLAG_IS_SET(object, GST_ELEMENT_FLAG_SINK), a macro: tells sinks (and bins
/// holding sinks) apart from decoders, so only tags that reached the output are reported.
static inline gboolean mn_object_is_sink(GstObject *object) {
    return GST_IS_ELEMENT(object) && GST_OBJECT_FLAG_IS_SET(object, GST_ELEMENT_FLAG_SINK);
}

/// Wrapper for GST_OBJECT_NAME, a macro; the string belongs to the object.
static inline const gchar *mn_object_name(GstObject *object) { return GST_OBJECT_NAME(object); }

/// Wrapper for GST_ELEMENT_NAME of the factory that made an element (macros), or NULL.
static inline const gchar *mn_element_factory_name(GstElement *element) {
    GstElementFactory *factory = gst_element_get_factory(element);
    return factory ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)) : NULL;
}

/// Wrapper for GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE: enum flags combine as ints in C only.
static inline GstSeekFlags mn_seek_flags_flush_accurate(void) {
    return (GstSeekFlags)(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE);
}

/// The message types the engine's bus thread consumes (an OR of enum flags, awkward from Swift).
static inline GstMessageType mn_engine_message_mask(void) {
    return (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS | GST_MESSAGE_STATE_CHANGED |
                            GST_MESSAGE_TAG | GST_MESSAGE_DURATION_CHANGED | GST_MESSAGE_BUFFERING |
                            GST_MESSAGE_STREAM_START | GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_APPLICATION |
                            GST_MESSAGE_REQUEST_STATE);
}

/// Runs in the thread that posts: drops what the bus thread would only discard (other types, and the state
/// changes of playbin's children, a few dozen per pause or seek), so posting them does not wake it.
/// `playbin` is only compared, never followed. A dropped message is the handler's to free.
static GstBusSyncReply mn_engine_bus_filter(GstBus *bus, GstMessage *message, gpointer playbin) {
    (void)bus;
    gboolean wanted = (GST_MESSAGE_TYPE(message) & mn_engine_message_mask()) != 0 &&
        (GST_MESSAGE_TYPE(message) != GST_MESSAGE_STATE_CHANGED || GST_MESSAGE_SRC(message) == (GstObject *)playbin);
    if (wanted) return GST_BUS_PASS;
    gst_message_unref(message);
    return GST_BUS_DROP;
}

static inline void mn_engine_filter_bus(GstBus *bus, GstElement *playbin) {
    gst_bus_set_sync_handler(bus, mn_engine_bus_filter, playbin, NULL);
}

// MARK: - The sound server (pulsesink)

/// Wrapper for g_object_set with one GstStructure property (variadic); the property copies the structure.
static inline void mn_object_set_structure(gpointer object, const char *name, const GstStructure *value) {
    g_object_set(object, name, value, NULL);
}

/// Whether a GstStructure property is set (g_object_get is variadic; the copy it gives is freed here).
static inline gboolean mn_object_has_structure(gpointer object, const char *name) {
    GstStructure *value = NULL;
    g_object_get(object, name, &value, NULL);
    if (value) gst_structure_free(value);
    return value != NULL;
}

/// Wrapper for g_object_get of one string property (variadic); the caller frees the copy with g_free.
static inline gchar *mn_object_get_string(gpointer object, const char *name) {
    gchar *value = NULL;
    g_object_get(object, name, &value, NULL);
    return value;
}

/// The first element made by `factory` in `bin`, searched recursively (GstIterator's GValues are awkward
/// from Swift), with a reference the caller drops; or NULL. An element that is itself one counts too.
static inline GstElement *mn_find_by_factory(GstElement *element, const char *factory) {
    GstElementFactory *own = gst_element_get_factory(element);
    if (own && g_strcmp0(gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(own)), factory) == 0) {
        return (GstElement *)gst_object_ref(element);
    }
    if (!GST_IS_BIN(element)) return NULL;
    GstElement *found = NULL;
    GstIterator *iterator = gst_bin_iterate_recurse(GST_BIN(element));
    GValue item = G_VALUE_INIT;
    while (!found && gst_iterator_next(iterator, &item) == GST_ITERATOR_OK) {
        GstElement *child = GST_ELEMENT(g_value_get_object(&item));
        GstElementFactory *made = gst_element_get_factory(child);
        if (made && g_strcmp0(gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(made)), factory) == 0) {
            found = (GstElement *)gst_object_ref(child);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(iterator);
    return found;
}

/// The tag that marks the tag events MediaNode itself sends a sound server's sink to name its stream, so
/// that the tag messages those events cause are not taken for the stream's own tags.
#define MN_STREAM_NAME_TAG "medianode-stream-name"

/// Registers the marker tag once per process (gst_tag_register needs G_TYPE_STRING, a macro).
static inline void mn_register_stream_name_tag(void) {
    if (!gst_tag_exists(MN_STREAM_NAME_TAG)) {
        gst_tag_register(MN_STREAM_NAME_TAG, GST_TAG_FLAG_META, G_TYPE_STRING, "stream name",
                         "the stream name MediaNode gives a sound server", NULL);
    }
}

/// Whether a tag list is one of MediaNode's own stream-name lists.
static inline gboolean mn_tags_name_stream(const GstTagList *tags) {
    return gst_tag_list_get_tag_size(tags, MN_STREAM_NAME_TAG) > 0;
}

/// A tag event that names the stream `title` (pulsesink takes a lone title as the stream's media.name), with
/// the marker (gst_tag_list_new is variadic).
static inline GstEvent *mn_stream_name_event(const gchar *title) {
    return gst_event_new_tag(gst_tag_list_new(GST_TAG_TITLE, title, MN_STREAM_NAME_TAG, title, NULL));
}

/// A copy of `tags` without what pulsesink would rename its stream after (title, artist, performer,
/// description, location), with the marker: the stream keeps the name MediaNode gave it.
static inline GstEvent *mn_unnaming_tag_event(const GstTagList *tags, const gchar *name) {
    GstTagList *copy = gst_tag_list_copy(tags);
    const gchar *naming[] = {GST_TAG_TITLE, GST_TAG_ARTIST, GST_TAG_PERFORMER, GST_TAG_DESCRIPTION, GST_TAG_LOCATION};
    for (guint index = 0; index < G_N_ELEMENTS(naming); index++) gst_tag_list_remove_tag(copy, naming[index]);
    gst_tag_list_add(copy, GST_TAG_MERGE_REPLACE, MN_STREAM_NAME_TAG, name ? name : "", NULL);
    return gst_event_new_tag(copy);
}

/// Posts `tags` (copied) as a tag message from `element`, as a sink does for the tag events it renders.
static inline void mn_post_tags(GstElement *element, const GstTagList *tags) {
    gst_element_post_message(element, gst_message_new_tag(GST_OBJECT(element), gst_tag_list_copy(tags)));
}

/// Wrapper for gst_pad_probe_info_get_event, and for replacing the event a probe passes on (a macro field).
static inline void mn_probe_replace_event(GstPadProbeInfo *info, GstEvent *event) {
    GstEvent *old = GST_PAD_PROBE_INFO_EVENT(info);
    GST_PAD_PROBE_INFO_DATA(info) = event;
    gst_event_unref(old);
}

/// Wrapper for GST_EVENT_TYPE, a macro.
static inline GstEventType mn_event_type(GstEvent *event) { return GST_EVENT_TYPE(event); }

#endif
