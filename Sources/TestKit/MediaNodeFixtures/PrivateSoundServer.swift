import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A car's sound server of the test's own: PulseAudio, or PipeWire with pipewire-pulse and WirePlumber on a
/// private D-Bus session bus, in a temporary folder of its own (runtime folder, socket, logs), reached only by
/// the clients given `environment`. It has a null sink `car`, the speakers, whose monitor a test records
/// (`record()`), and a car's policy by role, deploy/car-audio's examples as shipped: on PulseAudio a `phone`
/// stream corks `music` and an `event` stream ducks it; on PipeWire (WirePlumber's script) an `event` ducks it.
///
/// Runs as root: PulseAudio warns that it "is not intended to be run as root" and runs (`--system` would
/// be the system-wide mode, with its own socket, users and no module loading: not a car's session
/// server). `-n` skips the default script, `--exit-idle-time=-1` keeps it up without clients, and
/// `--use-pid-file=no` lets several run side by side. Call `stop()` when done; the object kills what it
/// started when released.
public final class PrivateSoundServer: @unchecked Sendable {
    public enum Kind: String, Sendable {
        case pulseAudio = "PulseAudio"
        case pipeWire = "PipeWire"
    }

    public let kind: Kind
    public let directory: URL
    /// The null sink's name: the car's speakers.
    public static let sinkName = "car"
    private let lock = NSLock()
    private var daemons: [Process] = []

    /// Null sinks beside the speakers, there from every start (other zones; a benchmark's floor).
    public let extraSinks: [String]

    public init(_ kind: Kind = .pulseAudio, startNow: Bool = true, extraSinks: [String] = []) async throws {
        self.kind = kind
        self.extraSinks = extraSinks
        directory = try AudioFixtures.makeTemporaryDirectory("sound-server")
        for folder in [runtimeDirectory, runtimeDirectory.appendingPathComponent("pulse"), home] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        // libpulse and PipeWire refuse a runtime folder others may enter.
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory.path)
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        if kind == .pipeWire {
            let wirePlumber = directory.appendingPathComponent("config/wireplumber")
            try FileManager.default.createDirectory(at: wirePlumber, withIntermediateDirectories: true)
            for folder in ["policy.lua.d", "scripts"] {
                try FileManager.default.copyItem(at: Self.examples.appendingPathComponent("wireplumber/\(folder)"),
                                                 to: wirePlumber.appendingPathComponent(folder))
            }
        }
        if startNow { try await start() }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var runtimeDirectory: URL { directory.appendingPathComponent("run") }
    var home: URL { directory.appendingPathComponent("home") }
    var configurationFile: URL { directory.appendingPathComponent("server.pa") }
    /// The PulseAudio-protocol socket, where pipewire-pulse puts it too.
    public var socketPath: String { runtimeDirectory.appendingPathComponent("pulse/native").path }
    public var address: String { "unix:\(socketPath)" }
    public var busAddress: String { "unix:path=\(directory.appendingPathComponent("bus").path)" }

    /// What a client (the node's process, pactl, parec, paplay) needs to reach this server and no other.
    public var environment: [String: String] {
        var variables = ["PULSE_SERVER": address, "XDG_RUNTIME_DIR": runtimeDirectory.path, "HOME": home.path,
                         "PULSE_RUNTIME_PATH": runtimeDirectory.appendingPathComponent("pulse").path]
        if kind == .pipeWire {
            variables["DBUS_SESSION_BUS_ADDRESS"] = busAddress
            // WirePlumber reads its policy from here, next to the system's.
            variables["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        }
        return variables
    }

    /// The daemon's own log (PulseAudio), or the server processes' output (PipeWire).
    public var log: String {
        let names = kind == .pulseAudio ? ["pulseaudio.log"] : ["dbus.log", "pipewire.log", "wireplumber.log", "pipewire-pulse.log"]
        return names.map { (try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) ?? "" }
            .joined(separator: "\n")
    }

    /// deploy/car-audio, the README's policy examples.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/car-audio")

    /// The null sink that is the speakers (`norewinds=1`: with rewinds, PulseAudio 16 holds back a stream
    /// for up to a second after it starts while the sink's monitor is recorded), the cork by role that Debian's
    /// default.pa loads, and the ducking example.
    private var configuration: String {
        """
        load-module module-native-protocol-unix auth-anonymous=1 socket=\(socketPath)
        load-module module-null-sink sink_name=\(Self.sinkName) sink_properties=device.description=Car norewinds=1
        \(extraSinks.map { "load-module module-null-sink sink_name=\($0) sink_properties=device.description=\($0) norewinds=1\n" }.joined())
        load-module module-role-cork trigger_roles=phone cork_roles=music
        .include \(Self.examples.appendingPathComponent("pulseaudio/medianode-roles.pa").path)
        set-default-sink \(Self.sinkName)

        """
    }

    // MARK: - Running

    /// Starts the server (again, after `kill()`) and returns once it answers, with the null sink the default.
    public func start() async throws {
        switch kind {
        case .pulseAudio:
            try launch("pulseaudio", ["-n", "-F", configurationFile.path, "--daemonize=no", "--exit-idle-time=-1",
                                      "--use-pid-file=no", "--disallow-exit", "--log-target=stderr"], log: "pulseaudio.log")
            try await waitUntilAnswering()
        case .pipeWire:
            try launch("dbus-daemon", ["--session", "--address=\(busAddress)", "--nofork", "--nopidfile"], log: "dbus.log")
            try await waitFor("the D-Bus session bus") { FileManager.default.fileExists(atPath: self.directory.appendingPathComponent("bus").path) }
            try launch("pipewire", [], log: "pipewire.log")
            try await waitFor("PipeWire's socket") {
                FileManager.default.fileExists(atPath: self.runtimeDirectory.appendingPathComponent("pipewire-0").path)
            }
            try launch("wireplumber", [], log: "wireplumber.log")
            try launch("pipewire-pulse", [], log: "pipewire-pulse.log")
            try await waitUntilAnswering()
            // pipewire-pulse makes the null sink and the policy's module as PulseAudio does.
            _ = try await pactl("load-module", "module-null-sink", "sink_name=\(Self.sinkName)",
                                "sink_properties=device.description=Car")
            for sink in extraSinks { try await addSink(sink) }
            // WirePlumber keeps the default sink, and takes a moment after pipewire-pulse answers to be asked.
            try await waitFor("WirePlumber to take the default sink") {
                (try? await self.pactl("set-default-sink", Self.sinkName)) != nil
            }
        }
    }

    /// Kills the server with SIGKILL, as a crash does, and returns once it has exited.
    public func kill() async {
        let running = lock.withLock { () -> [Process] in
            defer { daemons = [] }
            return daemons
        }
        for process in running.reversed() where process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        for process in running { await Self.ended(process.processIdentifier) }
    }

    /// Waits until `pid` has ended (gone, or a zombie: it holds no socket any more). Process.isRunning is not
    /// asked: in the test runner it can miss a child's end for good.
    static func ended(_ pid: Int32) async {
        while let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "Z" {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops everything it started, without waiting (a `defer` cannot await).
    public func stop() {
        let running = lock.withLock { () -> [Process] in
            defer { daemons = [] }
            return daemons
        }
        for process in running.reversed() where process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Runs pactl against this server; throws with its output when it fails.
    @discardableResult
    public func pactl(_ arguments: String...) async throws -> String {
        let (status, output) = try await ToolRun.capture("pactl", arguments, environment: environment)
        guard status == 0 else {
            throw AudioFixtureError.toolFailed(command: "pactl \(arguments.joined(separator: " "))", status: status, output: output)
        }
        return output
    }

    /// Whether the server answers (pactl info succeeds).
    public func answers() async -> Bool {
        (try? await ToolRun.capture("pactl", ["info"], environment: environment).status) == 0
    }

    /// Plays `file` as a stream of its own in `role` (paplay), e.g. a phone call (`phone`); the task ends when
    /// the stream has played, with that moment. (Run through swift-subprocess, which sees its exit at once.)
    /// (PulseAudio's role policies act within one sink: `sink` is where the stream plays.)
    public func play(_ file: URL, role: String, sink: String = PrivateSoundServer.sinkName) -> Task<Date, any Error> {
        let environment = environment
        return Task {
            let (status, output) = try await ToolRun.capture(
                "paplay", ["--property=media.role=\(role)", "--device=\(sink)", file.path], environment: environment)
            guard status == 0 else { throw AudioFixtureError.toolFailed(command: "paplay", status: status, output: output) }
            return Date()
        }
    }

    /// Records the speakers (or the sink named `sink`) from now on.
    public func record(sink: String = PrivateSoundServer.sinkName) throws -> MonitorRecording {
        try MonitorRecording(monitor: "\(sink).monitor", environment: environment,
                             file: directory.appendingPathComponent("monitor-\(UUID().uuidString.prefix(8)).raw"))
    }

    /// Adds a null sink named `name` beside the speakers (another zone of the car), as the speakers are made.
    public func addSink(_ name: String) async throws {
        let arguments = ["load-module", "module-null-sink", "sink_name=\(name)", "sink_properties=device.description=\(name)"]
        let (status, output) = try await ToolRun.capture("pactl", arguments + (kind == .pulseAudio ? ["norewinds=1"] : []),
                                                         environment: environment)
        guard status == 0 else { throw AudioFixtureError.toolFailed(command: "pactl load-module", status: status, output: output) }
    }

    // MARK: - Helpers

    private func launch(_ tool: String, _ arguments: [String], log: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let logFile = directory.appendingPathComponent(log)
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logFile)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { daemons.append(process) }
    }

    private func waitUntilAnswering() async throws {
        try await waitFor("\(kind.rawValue) to answer on \(address)") { await self.answers() }
    }

    private func waitFor(_ what: String, timeout: Double = 15, _ condition: @Sendable () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if await condition() { return }
            let exited = lock.withLock { daemons.first { !$0.isRunning } }
            if let exited {
                throw AudioFixtureError.toolFailed(command: exited.executableURL?.lastPathComponent ?? "a server process",
                                                   status: exited.terminationStatus, output: log)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw AudioFixtureError.toolFailed(command: "waiting for \(what)", status: -1, output: log)
    }
}

// MARK: - Streams

extension PrivateSoundServer {
    /// One playback stream as the server shows it (`pactl list sink-inputs`).
    public struct SinkInput: Sendable, CustomStringConvertible {
        public var properties: [String: String]
        public var isCorked: Bool
        public var isMuted: Bool
        /// The name of the sink it plays to.
        public var sink: String?
        public var role: String? { properties["media.role"] }
        public var description: String { "\(properties["media.name"] ?? "?") (\(role ?? "no role"))" }
    }

    /// The playback streams now, with their properties.
    public func sinkInputs() async throws -> [SinkInput] {
        let output = try await pactl("list", "sink-inputs")
        // `Sink: N` names a sink by its index: `pactl list short sinks` reads `N<TAB>name<TAB>...`.
        let sinks = Dictionary(try await pactl("list", "short", "sinks").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            return fields.count > 1 ? (String(fields[0]), String(fields[1])) : nil
        }) { first, _ in first }
        var inputs: [SinkInput] = []
        for block in output.components(separatedBy: "Sink Input #").dropFirst() {
            var input = SinkInput(properties: [:], isCorked: false, isMuted: false)
            for line in block.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("Corked:") { input.isCorked = line.hasSuffix("yes") }
                if line.hasPrefix("Mute:") { input.isMuted = line.hasSuffix("yes") }
                if line.hasPrefix("Sink:") { input.sink = sinks[line.dropFirst(5).trimmingCharacters(in: .whitespaces)] }
                // Properties read `name = "value"`.
                guard let equals = line.range(of: " = \""), line.hasSuffix("\"") else { continue }
                let name = String(line[..<equals.lowerBound])
                let value = String(line[equals.upperBound...].dropLast())
                input.properties[name] = value
            }
            inputs.append(input)
        }
        return inputs
    }
}

extension PrivateSoundServer {
    /// A phone call's audio: a 350 Hz tone (no tone step), `seconds` long, as a WAV file paplay reads.
    public static func phoneCall(seconds: Double, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("call.wav")
        let buffers = Int(seconds * 44_100 / 1024)
        let (status, output) = try await ToolRun.capture("gst-launch-1.0", [
            "-q", "audiotestsrc", "freq=350", "volume=0.4", "num-buffers=\(buffers)", "!",
            "audio/x-raw,rate=44100,channels=2", "!", "wavenc", "!", "filesink", "location=\(url.path)"])
        guard status == 0 else { throw AudioFixtureError.toolFailed(command: "gst-launch-1.0 (a phone call's audio)", status: status, output: output) }
        return url
    }
}
