import DBusBinding
import Foundation
import MPRIS
import MediaJSON
import MediaNode
import MediaNodeTesting

/// A node with `--mpris` on a private `dbus-daemon`, a real broker and real GStreamer rendering a library of
/// tones (with a cover picture) into a WAV; and the real clients a user drives it with.
struct MPRISRig {
    let daemon: DBusDaemon
    let library: ToneLibrary
    let node: RunningNode
    let tools: DBusTools
    /// `org.mpris.MediaPlayer2.medianode.car1`.
    var busName: String { MPRISNames.busName(nodeID: "car1") }
    /// What playerctl calls the player (`-p`).
    var player: String { "medianode.car1" }

    static func start(_ label: String, tones: [(frequency: Int, seconds: Double)] = [(440, 12), (660, 12), (880, 12)],
                      cover: Bool = true, daemon: DBusDaemon? = nil,
                      configure: @escaping (inout NodeConfiguration) -> Void = { _ in }) async throws -> MPRISRig {
        let daemon = if let daemon { daemon } else { try await DBusDaemon() }
        let library = try await ToneLibrary(label, tones: tones)
        if cover { try await AudioFixtures.writeCover(width: 64, height: 64, in: library.library) }
        let artwork = library.directory.appendingPathComponent("mpris-artwork").path
        let node = try await library.start(configure: { configuration in
            configuration.mpris = .address(daemon.address)
            configuration.mprisArtworkDirectory = artwork
            configure(&configuration)
        })
        let rig = MPRISRig(daemon: daemon, library: library, node: node, tools: DBusTools(address: daemon.address))
        try await rig.waitUntilRegistered()
        return rig
    }

    /// Waits until playerctl lists the player (it registers once the node has said `online`).
    func waitUntilRegistered(timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await tools.playerctl("-l").output.split(separator: "\n").contains(Substring(player)) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw WaitTimeout("\(player) on the bus; playerctl -l: \(try await tools.playerctl("-l").output)")
    }

    /// `playerctl -p medianode.car1 ARGS`, its output trimmed; throws unless it succeeded.
    @discardableResult
    func playerctl(_ arguments: String...) async throws -> String {
        let run = try await ToolRun.capture(
            "env", ["DBUS_SESSION_BUS_ADDRESS=\(daemon.address)", "playerctl", "-p", player] + arguments)
        guard run.status == 0 else { throw ToolFailed("playerctl \(arguments.joined(separator: " ")): \(run.output)") }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `gdbus call` of `method` on the player's object; the output whatever the exit status.
    func gdbus(_ method: String, _ arguments: String...) async throws -> (status: Int32, output: String) {
        try await ToolRun.capture(
            "gdbus", ["call", "--address", daemon.address, "--dest", busName, "--object-path", MPRISNames.objectPath,
                      "--method", method] + arguments)
    }

    /// A property as gdbus prints it, e.g. `(<'Paused'>,)`.
    func property(_ interface: String, _ name: String) async throws -> String {
        try await tools.property(busName, interface, name)
    }

    /// The replies on `P/result` to `command` sent through MPRIS (their ids are `mpris:N`).
    func mqttReplies(to command: String) async -> [JSONValue] {
        await node.client.messages(on: node.topics.result).compactMap { try? JSONValue(parsing: $0.payload) }.filter {
            $0["command"]?.stringValue == command && $0["id"]?.stringValue?.hasPrefix("mpris:") == true
        }
    }

    /// Runs `call` (a D-Bus client's call) and returns the reply to `command` it made appear on `P/result`.
    func mqttReply(to command: String, of call: () async throws -> Void) async throws -> JSONValue {
        let before = await mqttReplies(to: command).count
        try await call()
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let replies = await mqttReplies(to: command)
            if replies.count > before { return replies[before] }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw WaitTimeout("a reply to \(command) from MPRIS on P/result")
    }

    func monitor() async throws -> DBusMonitor { try await DBusMonitor(address: daemon.address, name: busName) }

    func stop() async {
        await node.stop()
        daemon.stop()
        library.remove()
    }
}

struct ToolFailed: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
