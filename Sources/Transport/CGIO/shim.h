#ifndef MEDIANODE_CGIO_SHIM_H
#define MEDIANODE_CGIO_SHIM_H
// GLib's GIO (GDBus) for the MPRIS front door: only what Swift cannot import is wrapped here.
#include <gio/gio.h>

/// G_VARIANT_TYPE is a cast macro, which Swift cannot import.
static inline const GVariantType *medianode_variant_type(const char *signature) {
    return (const GVariantType *)signature;
}

/// The signature of GDBusConnection's "closed" signal, for the typed connect below.
typedef void (*medianode_connection_closed_fn)(GDBusConnection *connection, gboolean remote_peer_vanished,
                                               GError *error, gpointer user_data);

/// g_signal_connect is a macro, and its G_CALLBACK cast erases the handler's type, which Swift cannot do.
static inline gulong medianode_connect_closed(GDBusConnection *connection, medianode_connection_closed_fn handler,
                                              gpointer user_data) {
    return g_signal_connect(connection, "closed", G_CALLBACK(handler), user_data);
}

#endif
