#ifndef MEDIANODE_CGDKPIXBUF_SHIM_H
#define MEDIANODE_CGDKPIXBUF_SHIM_H
#include <gdk-pixbuf/gdk-pixbuf.h>

/// Wrapper for g_object_unref on a pixbuf: GdkPixbuf is opaque to Swift, so it cannot cast it to gpointer.
static inline void mn_pixbuf_unref(GdkPixbuf *pixbuf) { g_object_unref(pixbuf); }

/// Wrapper for g_object_ref on a pixbuf, for the same reason.
static inline void mn_pixbuf_ref(GdkPixbuf *pixbuf) { g_object_ref(pixbuf); }

/// Wrapper for g_object_unref on a loader.
static inline void mn_loader_unref(GdkPixbufLoader *loader) { g_object_unref(loader); }

/// Saves as JPEG at `quality` (0-100) without the variadic gdk_pixbuf_save_to_buffer.
static inline gboolean mn_pixbuf_save_jpeg(GdkPixbuf *pixbuf, gchar **buffer, gsize *size, int quality,
                                           GError **error) {
    char text[8];
    g_snprintf(text, sizeof text, "%d", quality);
    char *keys[] = {"quality", NULL};
    char *values[] = {text, NULL};
    return gdk_pixbuf_save_to_bufferv(pixbuf, buffer, size, "jpeg", keys, values, error);
}
/// A "size-prepared" handler: the loader knows the picture's size and has not allocated it yet.
typedef void (*mn_size_prepared_func)(GdkPixbufLoader *loader, int width, int height, void *context);

/// Wrapper for g_signal_connect on a loader's "size-prepared", a macro Swift cannot import.
static inline void mn_loader_on_size_prepared(GdkPixbufLoader *loader, mn_size_prepared_func func, void *context) {
    g_signal_connect(loader, "size-prepared", G_CALLBACK(func), context);
}
#endif
