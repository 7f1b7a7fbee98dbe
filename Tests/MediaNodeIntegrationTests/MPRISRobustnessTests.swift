import DBusBinding
import Foundation
import MPRIS
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Synchronization
import Testing

/// MPRIS when things go wrong: hostile calls by the thousand, and a bus that dies and comes back.
@Suite("MPRIS under hostile calls and a restarting bus", .ownThreads)
struct MPRISRobustnessTests {
    /// `MEDIANODE_MPRIS_FUZZ_COUNT` (the full run is 10,000; CI runs fewer).
    static var count: Int { ProcessInfo.processInfo.environment["MEDIANODE_MPRIS_FUZZ_COUNT"].flatMap(Int.init) ?? 3_000 }
    /// The D-Bus errors a hostile call may get; any other (a timeout, an unknown service) is a failure.
    static let expectedErrors: Set<String> = [
        MPRISNames.commandFailed, "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownProperty",
        "org.freedesktop.DBus.Error.PropertyReadOnly", "org.freedesktop.DBus.Error.Failed",
    ]

    @Test("random D-Bus calls (bad types, unknown track ids, huge offsets) are each answered and never crash the daemon")
    func randomCalls() async throws {
        let scratch = try AudioFixtures.makeTemporaryDirectory("mpris-fuzz")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let daemon = try await DBusDaemon()
        defer { daemon.stop() }
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let music = scratch.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        var files: [String] = []
        for track in AudioFixtures.album(count: 3, seconds: 20, album: "Fuzz", artist: "Rig", baseFrequency: 330) {
            files.append(try await AudioFixtures.writeTone(track, in: music).absoluteString)
        }
        // The daemon itself, as an installation runs it: `--mpris session` finds the bus in its environment.
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "fuzz", "--audio-sink", "fake", "--library", music.path,
            "--database", scratch.appendingPathComponent("fuzz.sqlite").path, "--mpris", "session",
            "--metrics-interval", "0",
        ], environment: ["DBUS_SESSION_BUS_ADDRESS": daemon.address, "XDG_RUNTIME_DIR": scratch.path])
        let loop = BusLoop(name: "test.mpris.fuzz")
        let client = try await BusClient(address: daemon.address, loop: loop)
        let name = MPRISNames.busName(nodeID: "fuzz")
        try await Self.waitForPlayer(client, name: name, node: node)
        // OpenUri of a catalog file: its album becomes the queue, as playItem makes it (once the scan has put
        // the files in the catalog; before, the file plays alone).
        var tracks: [String] = []
        let scanned = ContinuousClock.now + .seconds(60)
        while tracks.count < 3, ContinuousClock.now < scanned {
            _ = try? await client.call(name, path: MPRISNames.objectPath, interface: MPRISNames.player, member: "OpenUri",
                                       arguments: [.string(files[0])])
            tracks = try await Self.tracks(client, name: name)
            if tracks.count < 3 { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(tracks.count == 3, "OpenUri of a file of the album queues the album")

        let seed = ProcessInfo.processInfo.environment["MEDIANODE_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_206
        let run = FuzzRun(generator: MPRISCallGenerator(seed: seed, tracks: tracks, files: files))
        let count = Self.count
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<4 {
                group.addTask {
                    while run.next.add(1, ordering: .relaxed).oldValue < count {
                        let call = run.generator.withLock { $0.next() }
                        do {
                            _ = try await client.call(name, path: MPRISNames.objectPath, interface: call.interface, member: call.member,
                                                      arguments: call.arguments, timeout: .seconds(20))
                            run.tally.withLock { $0.answered += 1 }
                        } catch let error as BusCallError {
                            let errorName = error.name ?? "none"
                            run.tally.withLock { tally in
                                tally.answered += 1
                                tally.errors[errorName, default: 0] += 1
                                if !Self.expectedErrors.contains(errorName) { tally.failures.append("\(call.description): \(error)") }
                            }
                        }
                        if !node.process.isRunning { throw ToolFailed("the node exited after \(call.description):\n\(node.log.suffix(3000))") }
                    }
                }
            }
        }
        let result = run.tally.withLock { $0 }
        #expect(result.answered == count)
        #expect(result.failures.isEmpty, "\(result.failures.count) calls got an unexpected answer, e.g. \(result.failures.prefix(5))")
        #expect(node.process.isRunning)
        // Still a working player, on both doors.
        let identity = try await client.call(name, path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "Get",
                                             arguments: [.string(MPRISNames.root), .string("Identity")])
        #expect(identity == [.variant(.string("MediaNode"))])
        let mqtt = try TestMQTTClient(brokerURL: broker.url, version: .v5)
        try await mqtt.connect()
        try await mqtt.subscribeAndSettle("medianode/fuzz/#")
        let status = try await mqtt.first { $0.topic == "medianode/fuzz/status" }
        #expect(String(decoding: status.payload, as: UTF8.self) == "online")
        try await mqtt.publish("medianode/fuzz/cmd/stop", #"{"id":"after-fuzz"}"#)
        let reply = try await mqtt.first { $0.topic == "medianode/fuzz/result" && String(decoding: $0.payload, as: UTF8.self).contains("after-fuzz") }
        #expect(try JSONValue(parsing: reply.payload)["status"] != nil)
        print("MPRIS fuzz: \(count) calls, errors by name: \(result.errors.sorted { $0.key < $1.key })")
        await mqtt.disconnect()
        await client.close()
        await loop.stop()
        node.signal(SIGTERM)
        #expect(await node.waitForExit(timeout: .seconds(20)) == 0)
    }

    @Test("the bus killed and started again: the node plays on over MQTT meanwhile and registers again")
    func busRestart() async throws {
        let rig = try await MPRISRig.start("mpris-restart", cover: false)
        let node = rig.node
        try await node.waitForState("paused")
        #expect(try await rig.playerctl("status") == "Paused")

        await rig.daemon.kill()
        // With the bus gone the node is as before on MQTT.
        #expect(try await node.status("play") == "success")
        try await node.waitForState("playing")
        try await node.waitForAudio(atLeast: 0.5)

        try await Task.sleep(for: .milliseconds(1500))
        try await rig.daemon.start()
        let back = ContinuousClock.now
        try await rig.waitUntilRegistered(timeout: .seconds(10))
        let took = ContinuousClock.now - back
        #expect(took < .seconds(3), "registered again \(took) after the bus came back")
        #expect(try await rig.playerctl("status") == "Playing", "the properties show the state it reached meanwhile")
        let pause = try await rig.mqttReply(to: "pause") { try await rig.playerctl("pause") }
        #expect(pause["status"] == "success")
        try await node.waitForState("paused")

        // And again, a restart right after the first.
        await rig.daemon.kill()
        try await rig.daemon.start()
        try await rig.waitUntilRegistered(timeout: .seconds(10))
        #expect(try await rig.playerctl("status") == "Paused")
        await rig.stop()
    }

    @Test("without a bus at start the node still comes online, and appears on D-Bus once the bus does")
    func noBusAtStart() async throws {
        let daemon = try await DBusDaemon(startNow: false)
        defer { daemon.stop() }
        // MPRISRig.start waits for the player; without a bus, start the node alone and check MQTT first.
        let library = try await ToneLibrary("mpris-late-bus", tones: [(440, 8)])
        defer { library.remove() }
        let node = try await library.start(configure: { $0.mpris = .address(daemon.address) })
        try await node.waitForState("paused")
        #expect(try await node.status("play") == "success", "the node plays with no bus")
        try await daemon.start()
        let rig = MPRISRig(daemon: daemon, library: library, node: node, tools: DBusTools(address: daemon.address))
        try await rig.waitUntilRegistered(timeout: .seconds(10))
        #expect(try await rig.playerctl("status") == "Playing")
        await node.stop()
    }

    // MARK: - Helpers

    static func waitForPlayer(_ client: BusClient, name: String, node: NodeProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let _ = try? await client.call(name, path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "Get",
                                              arguments: [.string(MPRISNames.root), .string("Identity")], timeout: .seconds(2)) { return }
            guard node.process.isRunning else { throw ToolFailed("the node exited:\n\(node.log.suffix(3000))") }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ToolFailed("\(name) did not appear on the bus:\n\(node.log.suffix(3000))")
    }

    /// The queue's track ids.
    static func tracks(_ client: BusClient, name: String) async throws -> [String] {
        let answer = try await client.call(name, path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "Get",
                                           arguments: [.string(MPRISNames.trackList), .string("Tracks")])
        guard case let .variant(.array(_, paths))? = answer.first else { return [] }
        return paths.compactMap(\.stringValue)
    }
}

/// What the fuzzing tasks share: the generator, the next call's number and what the calls got.
private final class FuzzRun: Sendable {
    let generator: Mutex<MPRISCallGenerator>
    let next = Atomic(0)
    let tally = Mutex<(answered: Int, errors: [String: Int], failures: [String])>((0, [:], []))

    init(generator: MPRISCallGenerator) { self.generator = Mutex(generator) }
}
