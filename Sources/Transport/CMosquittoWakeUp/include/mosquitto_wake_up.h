#ifndef MEDIANODE_MOSQUITTO_WAKE_UP_H
#define MEDIANODE_MOSQUITTO_WAKE_UP_H

/// Creates a libmosquitto client as mosquitto_new does, without the socket pair libmosquitto opens for
/// each client to wake its own select() loop.
///
/// MediaNode never runs that loop: a client waits with poll() on a wake-up of its own, or many share one
/// epoll thread. The pair still cost two descriptors per connection (10,000 nodes in one process need
/// 30,000 of them) and a one-byte write to it with every packet libmosquitto queued. libmosquitto carries
/// on without the pair when it cannot open one (it logs a warning nobody hears: no log callback is set
/// yet), so the pair is declined on this thread for the length of the call.
struct mosquitto *medianode_mosquitto_new(const char *client_id, int clean_session, void *user_data);

/// Whether this build's mosquitto_new calls reach the socketpair above: 1 when the executable's own
/// socketpair is the one libmosquitto links to, as the test checks.
int medianode_mosquitto_declines_socket_pair(void);

#endif
