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

/// A file-size limit (`ulimit -f`) must make the writes that pass it fail, which the catalog and the WAV
/// sink report, rather than kill the daemon with SIGXFSZ.
func ignoreFileSizeSignal() {
    signal(SIGXFSZ, SIG_IGN)
}
