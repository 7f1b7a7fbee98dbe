import ArgumentParser
import DBusBinding
import Foundation
import Logging
import MPRIS
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeFixtures
import Playback
import Synchronization

/// MPRIS's two directions through a node on a private dbus-daemon: an MQTT command's change as
/// `PropertiesChanged`, and a D-Bus property write as the retained MQTT state, each beside its floors in the
/// same run (a bare D-Bus round trip through the same daemon, a bare MQTT round trip through the same broker).
struct MPRISBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mpris", abstract: "MQTT change -> PropertiesChanged and D-Bus call -> MQTT state, beside bare round trips.")

    @Option(help: "Changes measured in each direction.") var changes = 400
    @Option(help: "Unmeasured changes first.") var warmup = 40

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let daemon = try await DBusDaemon()
        defer { daemon.stop() }
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)

        // The node, with its real transport and MPRIS; an in-memory engine: the volume goes through the
        // playback controller as it does on a car, without the cost of audio.
        var configuration = NodeConfiguration(broker: url, nodeID: "bench", databasePath: ":memory:", audioSink: "fake")
        configuration.mpris = .address(daemon.address)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: InMemoryAudioEngine(clock: SystemPlaybackClock()))
        let nodeTask = Task { await node.run() }
        let topics = configuration.topics

        let arrivals = VolumeArrivals()
        let watcher = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-mpris-watcher")) { message in
            if message.topic == topics.volume, let level = (try? JSONValue(parsing: message.payload))?["volume"]?.numberValue {
                arrivals.arrived(.mqtt, level)
            } else if message.topic == "bench/echo" {
                arrivals.arrived(.echo, 0)
            }
        }
        watcher.start()
        try watcher.subscribe(topics.volume, qos: 1)
        try watcher.subscribe("bench/echo", qos: 1)

        let loop = BusLoop(name: "bench.mpris")
        let bus = try await BusClient(address: daemon.address, loop: loop)
        let name = MPRISNames.busName(nodeID: "bench")
        let signals = bus.signals(from: nil, interface: MPRISNames.properties, member: "PropertiesChanged")
        let listening = Task {
            for await signal in signals {
                if case let .double(level)? = signal.arguments.dropFirst().first?.vardictMembers?["Volume"] {
                    arrivals.arrived(.dbus, level, at: signal.arrivedAt)
                }
            }
        }
        try await waitForPlayer(bus, name: name)

        var viaMQTT = (state: LatencySamples(), signal: LatencySamples(), after: LatencySamples())
        var viaDBus = (state: LatencySamples(), answer: LatencySamples())
        var floors = (dbus: LatencySamples(), mqtt: LatencySamples())
        let clock = ContinuousClock()
        for index in 0..<(warmup + changes) {
            let measured = index >= warmup
            // Distinct levels, so each arrival is the answer to its own change.
            let level = Double(100 + index % 800) / 1000
            // MQTT command -> P/volume and PropertiesChanged.
            var expected = arrivals.expect(level)
            let sent = clock.now
            try watcher.publish(topic: topics.command("changeVolume"), payload: Array(#"{"volume":\#(level)}"#.utf8), qos: 1)
            let (mqtt, dbus) = await expected.both()
            if measured {
                viaMQTT.state.append(mqtt - sent)
                viaMQTT.signal.append(dbus - sent)
                viaMQTT.after.append(dbus > mqtt ? dbus - mqtt : .zero)
            }
            // D-Bus property write -> its answer and P/volume.
            let other = Double(100 + (index + 400) % 800) / 1000
            expected = arrivals.expect(other)
            let called = clock.now
            _ = try await bus.call(name, path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "Set",
                                   arguments: [.string(MPRISNames.player), .string("Volume"), .variant(.double(other))])
            let answered = clock.now
            let (state, _) = await expected.both()
            if measured {
                viaDBus.state.append(state - called)
                viaDBus.answer.append(answered - called)
            }
            // Floors: a bare D-Bus call answered by the daemon itself, a bare MQTT publish back to its sender.
            let pinged = clock.now
            _ = try await bus.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                   member: "GetId")
            if measured { floors.dbus.append(clock.now - pinged) }
            let echo = arrivals.expectEcho()
            let published = clock.now
            try watcher.publish(topic: "bench/echo", payload: [1], qos: 1)
            let echoed = await echo.value
            if measured { floors.mqtt.append(echoed - published) }
        }
        print("load average: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?")")
        report("MQTT command (changeVolume) -> P/volume at a subscriber and PropertiesChanged at a D-Bus client (\(changes) each):",
               subject: ("-> PropertiesChanged (Volume)", viaMQTT.signal), floor: ("-> P/volume, the MQTT change", viaMQTT.state))
        report("PropertiesChanged after the MQTT change (0 when it came first):",
               subject: ("PropertiesChanged - P/volume arrival", viaMQTT.after), floor: ("floor: bare D-Bus round trip (GetId)", floors.dbus))
        report("D-Bus call (Properties.Set Volume) -> P/volume at an MQTT subscriber:",
               subject: ("-> P/volume", viaDBus.state), floor: ("floor: bare MQTT round trip, QoS 1", floors.mqtt))
        report("The same D-Bus call -> its answer:",
               subject: ("-> the D-Bus answer", viaDBus.answer), floor: ("floor: bare D-Bus round trip (GetId)", floors.dbus))

        listening.cancel()
        await bus.close()
        await loop.stop()
        await node.shutdown()
        await nodeTask.value
        await watcher.shutdown()
    }

    func waitForPlayer(_ bus: BusClient, name: String) async throws {
        for _ in 0..<300 {
            if (try? await bus.call(name, path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "Get",
                                    arguments: [.string(MPRISNames.root), .string("Identity")])) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ValidationError("the node did not appear on the bus")
    }
}

/// When each awaited volume arrived on MQTT and on D-Bus, and the echo of the MQTT floor.
final class VolumeArrivals: Sendable {
    enum Door { case mqtt, dbus, echo }

    struct Expectation {
        let mqtt: Eventual
        let dbus: Eventual
        func both() async -> (ContinuousClock.Instant, ContinuousClock.Instant) { (await mqtt.value, await dbus.value) }
    }

    /// A moment to be told once.
    final class Eventual: Sendable {
        private let state = Mutex<(moment: ContinuousClock.Instant?, waiter: CheckedContinuation<ContinuousClock.Instant, Never>?)>((nil, nil))
        func resolve(_ moment: ContinuousClock.Instant) {
            let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant, Never>? in
                guard state.moment == nil else { return nil }
                state.moment = moment
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: moment)
        }
        var value: ContinuousClock.Instant {
            get async {
                await withCheckedContinuation { continuation in
                    let known = state.withLock { state in
                        if state.moment == nil { state.waiter = continuation }
                        return state.moment
                    }
                    if let known { continuation.resume(returning: known) }
                }
            }
        }
    }

    private let waiting = Mutex<(level: Double, mqtt: Eventual, dbus: Eventual, echo: Eventual)?>(nil)

    func expect(_ level: Double) -> Expectation {
        let expectation = Expectation(mqtt: Eventual(), dbus: Eventual())
        waiting.withLock { $0 = (level, expectation.mqtt, expectation.dbus, Eventual()) }
        return expectation
    }

    func expectEcho() -> Eventual {
        let echo = Eventual()
        waiting.withLock { $0 = (-1, Eventual(), Eventual(), echo) }
        return echo
    }

    func arrived(_ door: Door, _ level: Double, at moment: ContinuousClock.Instant = .now) {
        guard let expected = waiting.withLock({ $0 }) else { return }
        switch door {
        case .echo: expected.echo.resolve(moment)
        case .mqtt where abs(expected.level - level) < 1e-9: expected.mqtt.resolve(moment)
        case .dbus where abs(expected.level - level) < 1e-9: expected.dbus.resolve(moment)
        default: break
        }
    }
}
