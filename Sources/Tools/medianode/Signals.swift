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

/// Writes that cannot succeed must fail with an error the daemon reports, not kill it: a file-size limit
/// (`ulimit -f`) passed by the catalog or the WAV sink (SIGXFSZ), and a socket or pipe whose reader has
/// gone, such as a broker connection closed under a publish (SIGPIPE). A library in the process already
/// ignores SIGPIPE; the daemon does not rely on that.
func ignoreWriteSignals() {
    signal(SIGXFSZ, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
}
