import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a sound server's sink plays, recorded from its monitor by parec (16-bit stereo at 44.1 kHz) into a raw
/// file that a test reads at any time as a `WAVFile`, with when each part of it was captured: the file's size
/// is sampled every 10 ms, and parec hands audio over every 10 ms (`--latency-msec`), so a moment of the
/// recording is placed in wall-clock time within a few hundredths of a second.
public final class MonitorRecording: @unchecked Sendable {
    public static let rate = 44_100
    static let bytesPerSecond = Double(rate * 4)

    public let file: URL
    private let process: Process
    private struct State {
        /// (seconds since the epoch, bytes in the file) while it records.
        var growth: [(time: Double, bytes: Int)] = []
        var stopped = false
    }
    private let state = Mutex(State())

    init(monitor: String, environment: [String: String], file: URL) throws {
        self.file = file
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/parec")
        process.arguments = ["--device=\(monitor)", "--raw", "--format=s16le", "--rate=\(Self.rate)", "--channels=2",
                             "--latency-msec=10"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let thread = Thread { [self] in followGrowth() }
        thread.name = "medianode.test.recording"
        thread.start()
    }

    deinit { stop() }

    /// Seconds recorded so far.
    public var seconds: Double { Double(size) / Self.bytesPerSecond }

    /// Whether parec still records (it ends with the server).
    public var isRecording: Bool { process.isRunning }

    /// The recording so far.
    public func wav() throws -> WAVFile {
        let data = try Data(contentsOf: file)
        let usable = data.count / 4 * 4
        return try WAVFile(bytes: Self.header(dataSize: usable) + [UInt8](data.prefix(usable)))
    }

    /// When the audio at `second` of the recording was captured, in seconds since the epoch; nil if it has not
    /// been recorded yet.
    public func wallTime(at second: Double) -> Double? {
        let wanted = Int(second * Self.bytesPerSecond)
        let growth = state.withLock { $0.growth }
        guard let index = growth.firstIndex(where: { $0.bytes >= wanted }) else { return nil }
        // It arrived after the sample before, and as the newest audio of the sample that first held it.
        let estimate = growth[index].time - Double(growth[index].bytes - wanted) / Self.bytesPerSecond
        return index > 0 ? max(growth[index - 1].time, estimate) : estimate
    }

    /// The second of the recording captured at `time` (seconds since the epoch), if it was recording then.
    public func second(atWallTime time: Double) -> Double? {
        let growth = state.withLock { $0.growth }
        guard let after = growth.firstIndex(where: { $0.time >= time }), after > 0 else { return nil }
        let sample = growth[after]
        return max(Double(growth[after - 1].bytes), Double(sample.bytes) - (sample.time - time) * Self.bytesPerSecond)
            / Self.bytesPerSecond
    }

    /// Waits until `seconds` have been recorded.
    public func waitFor(seconds wanted: Double, timeout: Double = 15) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while seconds < wanted {
            guard Date() < deadline, process.isRunning else {
                throw AudioFixtureError.toolFailed(command: "parec", status: process.isRunning ? -1 : process.terminationStatus,
                                                   output: "recorded \(seconds) s, waited for \(wanted) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    public func stop() {
        state.withLock { $0.stopped = true }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private var size: Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? Int) ?? 0
    }

    private func followGrowth() {
        var last = -1
        while !state.withLock({ $0.stopped }) {
            let now = Date().timeIntervalSince1970
            let bytes = size
            if bytes != last {
                state.withLock { $0.growth.append((now, bytes)) }
                last = bytes
            }
            usleep(10_000)
        }
    }

    static func header(dataSize: Int) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
        func u16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xff) } }
        return Array("RIFF".utf8) + u32(36 + dataSize) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(2)
            + u32(rate) + u32(4 * rate) + u16(4) + u16(16) + Array("data".utf8) + u32(dataSize)
    }
}
