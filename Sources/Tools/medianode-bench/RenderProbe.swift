import Foundation
import Synchronization

/// Something that looks at each stretch of rendered 16-bit samples as it appears.
protocol RenderObserver: Sendable {
    /// Called on one producer thread (GStreamer's streaming thread, or the WAV poller).
    func observe(_ bytes: UnsafeRawBufferPointer)
}

/// Watches rendered audio as a WAV file grows (the node's, or the bare playbin's built alike), and records when buffers arrive, so a measurement can ask "when did the first buffer
/// after t0 come", "when did the first audible buffer come" and "when did the output go quiet".
///
/// Threading: `observe` is called on its WAV poller's thread; the measuring thread reads the atomics.
final class RenderProbe: RenderObserver {
    /// Monotonic nanoseconds of the latest buffer, and of the latest buffer with a tone in it.
    private let lastBufferTime = Atomic<Int64>(0)
    private let lastLoudTime = Atomic<Int64>(0)
    /// Wakes a measuring thread waiting in `firstBuffer`. A wait that polled instead would compete for the
    /// cores with the pipeline it times, right while it refills after a seek.
    private let arrival = NSCondition()

    /// Called for every rendered buffer of 16-bit samples.
    func observe(_ bytes: UnsafeRawBufferPointer) {
        let now = monotonicNanoseconds()
        lastBufferTime.store(now, ordering: .releasing)
        let samples = bytes.bindMemory(to: Int16.self)
        // A half-volume tone peaks near 16,000; silence is 0.
        if samples.contains(where: { abs(Int32($0)) > 2000 }) { lastLoudTime.store(now, ordering: .releasing) }
        arrival.lock()
        arrival.broadcast()
        arrival.unlock()
    }

    /// Waits for a buffer rendered after `start`; returns its time, or nil after `timeout` seconds.
    func firstBuffer(after start: Int64, loud: Bool = false, timeout: Double = 5) -> Int64? {
        // The time is stamped by the poller when the buffer appears, so waking late does not change it.
        let deadline = Date(timeIntervalSinceNow: timeout)
        arrival.lock()
        defer { arrival.unlock() }
        func seen() -> Int64 { loud ? lastLoudTime.load(ordering: .acquiring) : lastBufferTime.load(ordering: .acquiring) }
        while seen() <= start {
            if !arrival.wait(until: deadline) { return seen() > start ? seen() : nil }
        }
        return seen()
    }

    /// Waits until no buffer has come for `quiet` seconds, so the next step starts from a silent output.
    func waitUntilQuiet(_ quiet: Double = 0.15) {
        while monotonicNanoseconds() - lastBufferTime.load(ordering: .acquiring) <= Int64(quiet * 1e9) {
            usleep(1000)
        }
    }
}

/// Follows a growing WAV file (the node's `wav:` sink keeps its header true after every append) and hands
/// each appended stretch of samples to a probe, on a thread of its own. It sleeps until the kernel says
/// the file was written (inotify), so it neither burns a core the node needs nor lags behind a write.
final class WAVPoller: @unchecked Sendable {
    private let descriptor: Int32
    private let notifications: Int32
    private let probe: any RenderObserver
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, probe: any RenderObserver) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.ENOENT) }
        notifications = inotify_init1(Int32(IN_CLOEXEC))
        guard notifications >= 0, inotify_add_watch(notifications, path, UInt32(IN_MODIFY)) >= 0 else {
            close(descriptor)
            throw POSIXError(.EINVAL)
        }
        self.probe = probe
        Thread { [self] in poll() }.start()
    }

    func stop() {
        running.store(false, ordering: .releasing)
        finished.wait()
        close(descriptor)
        close(notifications)
    }

    private func poll() {
        var consumed = 0
        var header = [UInt8](repeating: 0, count: 4)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var events = [UInt8](repeating: 0, count: 4096)
        /// Sleeps until the file is written, or 10 ms pass (to notice `stop`).
        func waitForWrite() {
            var watch = pollfd(fd: notifications, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&watch, 1, 10) > 0 { _ = read(notifications, &events, events.count) }
        }
        while running.load(ordering: .acquiring) {
            guard pread(descriptor, &header, 4, 40) == 4 else { waitForWrite(); continue }
            let size = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
            if size > consumed {
                let count = min(size - consumed, chunk.count) & ~1
                let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(44 + consumed)) }
                if read > 0 {
                    chunk.withUnsafeBytes { probe.observe(UnsafeRawBufferPointer(rebasing: $0[0..<(read & ~1)])) }
                    consumed += read & ~1
                }
            } else {
                waitForWrite()
            }
        }
        finished.signal()
    }
}

func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

extension LatencySamples {
    mutating func append(nanoseconds: Int64) { values.append(Double(nanoseconds) / 1000) }
}
