import Foundation
import Logging
import Playback
import Synchronization

/// Appends 16-bit PCM to a WAV file and keeps its header true after every append, so a reader that opens
/// the file at any moment (a test, mid-playback) sees a valid WAV of everything played so far.
///
/// `wavenc ! filesink` cannot do this: it rewrites the header by seeking the file, which breaks as soon as
/// a flushing seek sends a new segment. Writing the file ourselves keeps it append-only.
///
/// Threading: `append` runs on the sink's streaming thread, `close` on the engine's executor; a mutex
/// serialises them, so an append racing a close is dropped rather than written to a closed descriptor.
package final class WAVFileWriter: Sendable {
    static let sampleRate: UInt32 = 44_100
    static let channels: UInt16 = 2
    static let bitsPerSample: UInt16 = 16
    static let headerSize = 44
    /// RIFF sizes are 32-bit; past this the file stops growing instead of lying (about 6.7 hours of audio).
    static let maximumDataSize = UInt64(UInt32.max) - UInt64(headerSize)

    let path: String
    private let logger: Logger
    private struct Output {
        var descriptor: Int32
        var dataSize: UInt64 = 0
        /// The last write failed and was logged; the next failure is not logged again.
        var isFailing = false
        /// Announcement samples waiting to be added to the music's next frames (see `mix`).
        var pendingOverlay: [Int16] = []
        /// When the music's last frames came (monotonic nanoseconds).
        var lastMusicAt: UInt64?
    }
    private let output: Mutex<Output?>

    /// Creates (or truncates) the file and writes the header of an empty WAV.
    init(path: String, logger: Logger = Logger(label: "medianode.audio")) throws(AudioError) {
        self.path = path
        self.logger = logger
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AudioError(.device, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        let header = Self.header(dataSize: 0)
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == header.count else {
            _ = Glibc.close(descriptor)
            throw AudioError(.device, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        output = Mutex(Output(descriptor: descriptor))
    }

    deinit { close() }

    /// Bytes of PCM written so far.
    var dataSize: UInt64 { output.withLock { $0?.dataSize ?? 0 } }

    /// Appends interleaved S16LE stereo frames of the music, with any announcement audio waiting to be
    /// mixed in, then patches the two size fields.
    func append(_ bytes: UnsafeRawBufferPointer) {
        output.withLock { output in
            guard var current = output, bytes.baseAddress != nil, !bytes.isEmpty else { return }
            current.lastMusicAt = Self.now()
            if current.pendingOverlay.isEmpty {
                write(bytes, into: &current)
            } else {
                var mixed = Array(bytes.bindMemory(to: Int16.self))
                let count = min(mixed.count, current.pendingOverlay.count)
                for index in 0..<count {
                    let sum = Int32(mixed[index]) + Int32(current.pendingOverlay[index])
                    mixed[index] = Int16(clamping: sum)
                }
                current.pendingOverlay.removeFirst(count)
                mixed.withUnsafeBytes { write($0, into: &current) }
            }
            output = current
        }
    }

    /// Mixes an announcement's frames into the output, as a sound server mixes a second stream into the
    /// device: added to the music's next frames while the music is being written, written on their own
    /// when it is not (paused, stopped, or between items for longer than a buffer).
    func mix(_ bytes: UnsafeRawBufferPointer) {
        output.withLock { output in
            guard var current = output, bytes.baseAddress != nil, !bytes.isEmpty else { return }
            let musicFlows = current.lastMusicAt.map { Self.now() - $0 < Self.musicGapNanoseconds } ?? false
            if musicFlows {
                current.pendingOverlay += bytes.bindMemory(to: Int16.self)
                // The music stalled right after its last buffer: keep at most a few seconds waiting.
                let limit = Int(Self.sampleRate) * Int(Self.channels) * 5
                if current.pendingOverlay.count > limit { current.pendingOverlay.removeFirst(current.pendingOverlay.count - limit) }
            } else {
                if !current.pendingOverlay.isEmpty {
                    let waiting = current.pendingOverlay
                    current.pendingOverlay.removeAll()
                    waiting.withUnsafeBytes { write($0, into: &current) }
                }
                write(bytes, into: &current)
            }
            output = current
        }
    }

    /// Music buffers come every 10 to 50 ms while it plays; a longer silence means it does not.
    private static let musicGapNanoseconds: UInt64 = 100_000_000

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Writes whole frames at the end of the data, under the lock.
    private func write(_ bytes: UnsafeRawBufferPointer, into current: inout Output) {
        guard let base = bytes.baseAddress else { return }
        let room = Self.maximumDataSize - current.dataSize
        let count = Int(min(UInt64(bytes.count), room)) & ~3  // whole frames only
        guard count > 0 else { return }
        let offset = off_t(Self.headerSize) + off_t(current.dataSize)
        let written = pwrite(current.descriptor, base, count, offset)
        // A short write (a full disk) keeps whole frames only, so later audio stays aligned.
        let kept = max(0, written) & ~3
        if written < count {
            if !current.isFailing {
                let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(count) bytes written"
                logger.error("audio: cannot write to \(path) (\(reason)); audio is dropped until writing works again")
            }
            current.isFailing = true
        } else if current.isFailing {
            logger.notice("audio: writing to \(path) works again")
            current.isFailing = false
        }
        if kept > 0 {
            current.dataSize += UInt64(kept)
            Self.patchSizes(of: current.descriptor, dataSize: current.dataSize)
        }
    }

    /// Closes the file; later appends are ignored. Safe to call more than once.
    func close() {
        output.withLock { output in
            if let current = output { _ = Glibc.close(current.descriptor) }
            output = nil
        }
    }

    private static func patchSizes(of descriptor: Int32, dataSize: UInt64) {
        var riff = UInt32(truncatingIfNeeded: dataSize + 36).littleEndian
        var data = UInt32(truncatingIfNeeded: dataSize).littleEndian
        _ = pwrite(descriptor, &data, 4, 40)
        _ = pwrite(descriptor, &riff, 4, 4)
    }

    static func header(dataSize: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func ascii(_ text: String) { bytes += Array(text.utf8) }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        let blockAlign = channels * bitsPerSample / 8
        ascii("RIFF"); u32(36 + dataSize); ascii("WAVE")
        ascii("fmt "); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * UInt32(blockAlign)); u16(blockAlign); u16(bitsPerSample)
        ascii("data"); u32(dataSize)
        return bytes
    }
}
