import Foundation
import Glibc
import MediaJSON
import MediaNodeTesting
import Synchronization
import Testing

@Suite("An audio output that is lost and comes back")
struct OutputLossTests {
    @Test("the chosen audio language is still the one heard after the output was lost and reopened")
    func languageSurvivesOutputLoss() async throws {
        let library = try await ToneLibrary.bilingual("output-loss", seconds: 30)
        defer { library.remove() }
        let receiver = try PCMReceiver()
        defer { receiver.stop() }
        // An output that can be unplugged and plugged in again: raw PCM over a TCP connection the test ends.
        let node = try await RunningNode.start(
            libraries: [library.library.path],
            sink: "audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=\(PCMReceiver.rate) ! "
                + "tcpclientsink host=127.0.0.1 port=\(receiver.port) sync=true")
        try await node.waitForState("paused")
        #expect(try await node.status("play") == "success")
        try await receiver.waitForAudio(seconds: 0.6)
        // Which stream playbin starts with is its choice: the test hears both on purpose, German last.
        for (tag, tone) in [("en", 440.0), ("de", 880.0)] {
            let reply = try await node.send("enableLanguageOption", #""languageTag":"\#(tag)","type":"audible""#)
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            try await receiver.waitForAudio(seconds: receiver.receivedSeconds + 0.8)
            #expect(isNear(receiver.recentTone(), tone), "\(tag) is heard before the loss")
        }

        receiver.hangUp()
        let error = try await node.waitForEvent("the output error") { $0["type"] == "error" }
        #expect(error["kind"] == "device")
        try await node.waitForState("paused")
        // The first play after a loss reopens the output and reports the loss; the next one plays.
        #expect(try await node.status("play") == "deviceNotFound")
        #expect(try await node.status("play") == "success")
        try await receiver.waitForAudio(seconds: 1.5)
        #expect(receiver.connections == 2)
        #expect(isNear(receiver.recentTone(), 880), "German is still heard after the output came back")
        await node.stop()
    }
}

/// A loopback TCP server that takes the raw 16-bit mono PCM a `tcpclientsink` sends, one connection at a
/// time, and can hang up on the current one as an unplugged output would.
final class PCMReceiver: Sendable {
    static let rate = 44100
    let port: Int
    private let listener: Int32
    private struct State {
        var connection: Int32 = -1
        var connections = 0
        /// Bytes of the current connection.
        var bytes: [UInt8] = []
        var stopped = false
    }
    private let state = Mutex(State())

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw RigSetupError("cannot listen on loopback: errno \(errno)")
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var connections: Int { state.withLock { $0.connections } }

    /// Seconds of audio the current connection has brought.
    var receivedSeconds: Double { Double(state.withLock { $0.bytes.count }) / Double(2 * Self.rate) }

    /// The dominant frequency of the last half second received.
    func recentTone() -> Double? {
        let samples = state.withLock { state in
            state.bytes.count < 2 * Self.rate / 2 ? [] : Array(state.bytes.suffix(2 * Self.rate / 2))
        }
        guard !samples.isEmpty, let wav = try? WAVFile(bytes: Self.wavHeader(dataSize: samples.count) + samples) else {
            return nil
        }
        return wav.dominantFrequency(from: 0, length: wav.duration)
    }

    /// Waits until the current connection has brought `seconds` of audio.
    func waitForAudio(seconds: Double, timeout: Double = 15) async throws {
        let wanted = Int(seconds * Double(2 * Self.rate))
        let deadline = Date().addingTimeInterval(timeout)
        while state.withLock({ $0.bytes.count }) < wanted {
            guard Date() < deadline else { throw RigSetupError("no \(seconds) s of audio came within \(timeout) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Ends the current connection; the sender's next write fails.
    func hangUp() {
        let connection = state.withLock { $0.connection }
        if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        hangUp()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let stopped = state.withLock { state in
                state.connection = connection
                state.connections += 1
                state.bytes = []
                return state.stopped
            }
            if stopped { close(connection); return }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                state.withLock { $0.bytes += buffer[0..<count] }
            }
            state.withLock { $0.connection = -1 }
            close(connection)
        }
    }

    private static func wavHeader(dataSize: Int) -> [UInt8] {
        func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
        func u16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xff) } }
        return Array("RIFF".utf8) + u32(36 + dataSize) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(1)
            + u32(rate) + u32(2 * rate) + u16(2) + u16(16) + Array("data".utf8) + u32(dataSize)
    }
}
