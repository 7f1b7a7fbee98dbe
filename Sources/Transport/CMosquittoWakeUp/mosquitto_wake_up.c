#define _GNU_SOURCE
#include "mosquitto_wake_up.h"

#include <dlfcn.h>
#include <errno.h>
#include <mosquitto.h>
#include <stdbool.h>
#include <sys/socket.h>

static __thread bool declining;
static __thread int declined;

// The executable's definition comes before libc's for every library in the process, libmosquitto among
// them; outside medianode_mosquitto_new it only passes the call on.
int socketpair(int domain, int type, int protocol, int pair[2]) {
    if (declining) {
        declined += 1;
        errno = EMFILE;
        return -1;
    }
    static int (*next)(int, int, int, int[2]);
    if (next == NULL) {
        next = (int (*)(int, int, int, int[2]))dlsym(RTLD_NEXT, "socketpair");
        if (next == NULL) {
            errno = ENOSYS;
            return -1;
        }
    }
    return next(domain, type, protocol, pair);
}

struct mosquitto *medianode_mosquitto_new(const char *client_id, int clean_session, void *user_data) {
    declining = true;
    struct mosquitto *handle = mosquitto_new(client_id, clean_session, user_data);
    declining = false;
    return handle;
}

int medianode_mosquitto_declines_socket_pair(void) {
    int before = declined;
    struct mosquitto *handle = medianode_mosquitto_new(NULL, true, NULL);
    if (handle != NULL) mosquitto_destroy(handle);
    return declined > before;
}
