#if canImport(Glibc)
import Glibc
#endif

/// A parent may start us with SIGTERM or SIGINT blocked (the mask is inherited across exec); graceful
/// shutdown needs them delivered.
func unblockShutdownSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGTERM)
    sigaddset(&set, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}
