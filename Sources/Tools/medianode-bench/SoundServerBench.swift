import ArgumentParser
import CatalogStore
import Foundation
import GStreamerAudio
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeFixtures
import Synchronization

/// What the car's sound server costs the listener, beside GStreamer's floor in the same run, on a private
/// PulseAudio (`module-role-cork`: a `phone` stream corks `music` on its sink) with two null sinks recorded from their
/// monitors: the node plays one-second tone steps to `car` (`--audio-sink pulse:car`), a bare playbin plays
/// the same file to `floor` through a bare pulsesink in role `music` (see `FloorPlaybin`). Both are corked by
/// the same phone call and lose the same server, so both measurements find the same load.
///
/// - A call (paplay, `media.role=phone`, one on each sink): its start to now playing `interrupted` at a subscriber, beside the
///   cork request taken off the bare playbin's bus; its end to the music heard again, in each recording;
///   the seconds of music lost (+) or repeated (-) across it, read from the tone steps.
/// - The server SIGKILLed and started again 1.5 s later: the kill to now playing `interrupted`, beside the
///   bare playbin's first error; the server's return (it answers `pactl info`) to the music heard again,
///   beside the bare playbin reopened at once where it was (NULL, PAUSED, seek, PLAYING); seconds lost or
///   repeated.
struct SoundServerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sound-server",
        abstract: "sound-server: a phone call's cork and a server restart, heard, beside a bare playbin on the same server.")

    @Option(help: "Rounds of each (a call, a restart).") var rounds = 3
    @Option(help: "Each call's length, seconds.") var callSeconds = 2.0

    func run() async throws {
        quietLogs()
        print("load average at start: \(loadAverage())")
        let server = try await PrivateSoundServer(extraSinks: ["floor"])
        defer { server.stop() }
        // The node's pulsesink, pactl and parec reach this server and no other.
        for (name, value) in server.environment { setenv(name, value, 1) }
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-sound-server")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        // Room for a loaded machine, where each round's waits run long while the music plays on.
        let steps = try await ToneSteps.write(count: 20 + rounds * 30, named: "steps.ogg", in: library)
        let call = try await PrivateSoundServer.phoneCall(seconds: callSeconds, in: directory)

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let configuration = NodeConfiguration(
            broker: url, nodeID: "bench-car", libraries: [library.path],
            databasePath: directory.appendingPathComponent("catalog.sqlite").path, audioSink: "pulse:\(PrivateSoundServer.sinkName)")
        let catalog = try CatalogDatabase(path: configuration.databasePath)
        _ = await CatalogRefresher(database: catalog).refresh(LocalFolderProvider(roots: [library]))
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: catalog, clipPlayer: GStreamerClipPlayer(sharingOutputOf: engine))
        let nodeTask = Task { await node.run() }
        let commander = try Commander(url: url, topics: configuration.topics)
        let states = try NowPlayingStates(url: url, topic: configuration.topics.nowPlaying)
        try await queue(steps, library: library, with: commander)

        let floor = try FloorPlaybin(uri: steps.absoluteString, sink: "floor")
        var recordings = try Recordings(server)
        guard commander.send("play", "{}") else { throw BenchError("the node did not play") }
        floor.play()
        try await Task.sleep(for: .seconds(2.5))

        var figures = SoundServerFigures()
        // Read from the recordings once the rounds are over: reading them as the music plays would stretch
        // the rounds on a loaded machine, and the file could run out.
        var readings: [(side: Int, heard: () -> Heard?, restart: Bool)] = []
        var replaced: [Recordings] = []
        for _ in 0..<rounds {
            // PulseAudio's role policy acts within a sink: a call on each, started together.
            let began = now()
            let phones = [server.play(call, role: "phone"), server.play(call, role: "phone", sink: "floor")]
            let nodeHeld = try await states.first("interrupted", after: began)
            let floorHeld = try await floor.firstRequest(paused: true, after: began)
            var ended: [Double] = []
            for phone in phones { ended.append(try await phone.value.timeIntervalSince1970) }
            try await Task.sleep(for: .seconds(2.5))
            figures.held.node.append(.seconds(nodeHeld - began))
            figures.held.floor.append(.seconds(floorHeld - began))
            for (side, recording) in [(0, recordings.node), (1, recordings.floor)] {
                readings.append((side, { Heard(side, stoppedIn: recording, before: ended[side], resumedIn: recording, after: began, since: ended[side]) }, false))
            }
        }
        for _ in 0..<rounds {
            let position = floor.position()
            let killed = now()
            await server.kill()
            let nodeLost = try await states.first("interrupted", after: killed)
            let floorLost = try await floor.firstError(after: killed)
            try await Task.sleep(for: .seconds(1.5))
            let before = recordings
            try await server.start()
            let returned = now()
            // Recorded from its return (parec ended with the server), the floor reopened at once beside it.
            recordings = try Recordings(server)
            await onDedicatedThread { floor.reopen(at: position) }
            try await Task.sleep(for: .seconds(3))
            figures.lost.node.append(.seconds(nodeLost - killed))
            figures.lost.floor.append(.seconds(floorLost - killed))
            for (side, old, new) in [(0, before.node, recordings.node), (1, before.floor, recordings.floor)] {
                readings.append((side, { Heard(side, stoppedIn: old, before: nil, resumedIn: new, after: returned - 1, since: returned) }, true))
            }
            replaced.append(before)
        }
        recordings.stop()
        floor.stop()
        for reading in readings { figures.add(reading.heard(), to: reading.side, restart: reading.restart) }
        for old in replaced { old.stop() }
        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await states.client.shutdown()
        figures.print(rounds: rounds)
        print("load average at the end: \(loadAverage())")
    }

    private func now() -> Double { Date().timeIntervalSince1970 }

    private func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The node's and the floor's sinks, recorded.
private struct Recordings {
    let node: MonitorRecording
    let floor: MonitorRecording

    init(_ server: PrivateSoundServer) throws {
        node = try server.record(sink: PrivateSoundServer.sinkName)
        floor = try server.record(sink: "floor")
    }

    func stop() {
        node.stop()
        floor.stop()
    }
}

/// Where the music stopped and went on from, read from tone steps, and when it was heard again.
private struct Heard {
    /// Seconds of the file lost (+) or repeated (-).
    var skipped: Double
    /// Seconds from `since` (wall time) to the music heard again.
    var back: Double

    /// `end` and `start` are wall times: the music stopped in `old` before `end` (nil: its end), went on in
    /// `new` after `start`.
    /// Nil, with a warning naming the side and the runs heard, when the tone steps do not say it (a dropout
    /// of the sink on a loaded machine, where the music stopped or went on, hides the step boundary).
    init?(_ side: Int, stoppedIn old: MonitorRecording, before end: Double?, resumedIn new: MonitorRecording,
          after start: Double, since moment: Double) {
        let name = side == 0 ? "medianode" : "floor"
        guard let oldRuns = try? old.wav().toneStepRuns(), let newRuns = try? new.wav().toneStepRuns() else { return nil }
        let stopBefore = end.flatMap(old.second(atWallTime:)) ?? old.seconds
        guard let stopped = oldRuns.positionWhereMusicStopped(before: stopBefore) else {
            print("warning: \(name): where the music stopped is not heard: \(oldRuns.suffix(6))")
            return nil
        }
        let after = (new.second(atWallTime: start) ?? 0) + 0.1
        guard let resumed = newRuns.positionWhereMusicResumed(after: after), let heardAt = new.wallTime(at: resumed.at) else {
            print("warning: \(name): where the music went on is not heard: \(newRuns.filter { $0.end > after }.prefix(6))")
            return nil
        }
        skipped = resumed.position - stopped
        back = heardAt - moment
    }
}

private struct SoundServerFigures {
    var held = (node: LatencySamples(), floor: LatencySamples())
    var callBack = (node: LatencySamples(), floor: LatencySamples())
    var callSkipped = (node: [Double](), floor: [Double]())
    var lost = (node: LatencySamples(), floor: LatencySamples())
    var restartBack = (node: LatencySamples(), floor: LatencySamples())
    var restartSkipped = (node: [Double](), floor: [Double]())

    /// Rounds whose tone steps did not say where the music stopped or went on, by side.
    var unread = (node: 0, floor: 0)

    mutating func add(_ heard: Heard?, to side: Int, restart: Bool) {
        guard let heard else {
            if side == 0 { unread.node += 1 } else { unread.floor += 1 }
            return
        }
        switch (side, restart) {
        case (0, false): callBack.node.append(.seconds(heard.back)); callSkipped.node.append(heard.skipped)
        case (_, false): callBack.floor.append(.seconds(heard.back)); callSkipped.floor.append(heard.skipped)
        case (0, true): restartBack.node.append(.seconds(heard.back)); restartSkipped.node.append(heard.skipped)
        case (_, true): restartBack.floor.append(.seconds(heard.back)); restartSkipped.floor.append(heard.skipped)
        }
    }

    func print(rounds: Int) {
        func list(_ values: [Double]) -> String { values.map { String(format: "%+.3f", $0) }.joined(separator: ", ") }
        report("a phone call's stream starts -> the music held (\(rounds) calls):",
               subject: ("medianode: now playing interrupted, at a subscriber", held.node),
               floor: ("floor: the cork request off a bare playbin's bus", held.floor))
        report("the call ends -> the music heard again:",
               subject: ("medianode: on from where it was held", callBack.node),
               floor: ("floor: the uncork request applied at once", callBack.floor))
        Swift.print("  seconds of music lost (+) or repeated (-) across each call: medianode \(list(callSkipped.node)); "
                    + "floor \(list(callSkipped.floor))")
        report("the server SIGKILLed -> the music held (\(rounds) restarts):",
               subject: ("medianode: now playing interrupted, at a subscriber", lost.node),
               floor: ("floor: the bare playbin's first error", lost.floor))
        report("the server answers again (1.5 s later) -> the music heard again:",
               subject: ("medianode: asks every 0.5 s, reopens where it was", restartBack.node),
               floor: ("floor: reopened at once where it was", restartBack.floor))
        Swift.print("  seconds of music lost (+) or repeated (-) across each restart: medianode \(list(restartSkipped.node)); "
                    + "floor \(list(restartSkipped.floor))")
        Swift.print("  rounds the tone steps did not read (a sink's dropout at the place): medianode \(unread.node), floor \(unread.floor)")
    }
}

/// Stamps each now playing state as it arrives at a subscriber (on the network thread).
final class NowPlayingStates: @unchecked Sendable {
    let client: MQTTClient
    private let log = StateLog()

    init(url: BrokerURL, topic: String) throws {
        let log = log
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-nowplaying")) { message in
            let now = Date().timeIntervalSince1970
            guard let state = (try? JSONValue(parsing: message.payload))?["state"]?.stringValue else { return }
            log.entries.withLock { $0.append((now, state)) }
        }
        client.start()
        try client.subscribe(topic, qos: 1)
    }

    /// When now playing first showed `state` after `time` (seconds since the epoch).
    func first(_ state: String, after time: Double, timeout: Double = 5) async throws -> Double {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let entry = log.entries.withLock({ $0.first { $0.time >= time && $0.state == state } }) { return entry.time }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchError("now playing did not show \(state) within \(timeout) s")
    }
}

private final class StateLog: Sendable {
    let entries = Mutex<[(time: Double, state: String)]>([])
}
