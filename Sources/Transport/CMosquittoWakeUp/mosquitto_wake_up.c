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
    // Looked up once; threads that race to it store the same address.
    static int (*next)(int, int, int, int[2]);
    int (*found)(int, int, int, int[2]) = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (int (*)(int, int, int, int[2]))dlsym(RTLD_NEXT, "socketpair");
        if (found == NULL) {
            errno = ENOSYS;
            return -1;
        }
        __atomic_store_n(&next, found, __ATOMIC_RELEASE);
    }
    return found(domain, type, protocol, pair);
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
