import ArgumentParser
import CGStreamer
import CatalogStore
import Dispatch
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeFixtures
import Synchronization

/// What an announcement costs a listener, beside GStreamer's floor measured in the same run:
///
/// - publishing `announce` to the clip's first sample in the output, beside a bare playbin built for the
///   same clip file and set PLAYING, its output mixed into a bare music playbin's the same way (the same
///   `wav:` sink kind: the clip's samples added to the music's next frames);
/// - the clip's last sample to the music back within 1 dB of its level (audio time, in the WAV), beside the
///   bare clip's end of stream taken off its bus by a thread waiting there, which sets the bare music's
///   volume element back at once.
///
/// Both musics play the whole run, so both measurements find the same load. Each WAV is followed as it
/// grows (`WAVPoller`), stamping when each stretch arrived; the clip (1,500 Hz) and the music (440 Hz) are
/// told apart in the mix afterwards (`WAVFile.toneLevel`), so nothing is analysed while measuring.
struct AnnounceBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce",
        abstract: "announce: publish -> the clip heard, and the clip's end -> the music back, beside a bare playbin.")

    @Option(help: "Measured rounds of each (after one round of warm-up).") var rounds = 20
    @Option(help: "The clip's length, seconds.") var clipSeconds = 1.0

    static let clipFrequency = 1500.0
    static let musicFrequency = 440.0
    /// The node's duck (PlaybackConfiguration.duckVolume), applied to the bare music too.
    static let duck = 0.2

    func run() async throws {
        quietLogs()
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-announce")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library")
        let roundSeconds = clipSeconds * 2 + 4
        let music = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "music.ogg", frequency: Int(Self.musicFrequency),
                      seconds: Double(rounds + 1) * roundSeconds + 30, title: "Music"),
            in: library)
        let clip = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "clip.ogg", frequency: Int(Self.clipFrequency), seconds: clipSeconds, title: "Clip"),
            in: directory.appendingPathComponent("clips"))
        let nodeWAV = directory.appendingPathComponent("node.wav")
        let bareWAV = directory.appendingPathComponent("bare.wav")

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let configuration = NodeConfiguration(
            broker: url, nodeID: "bench-announce", libraries: [library.path],
            databasePath: directory.appendingPathComponent("catalog.sqlite").path, audioSink: "wav:\(nodeWAV.path)")
        let catalog = try CatalogDatabase(path: configuration.databasePath)
        _ = await CatalogRefresher(database: catalog).refresh(LocalFolderProvider(roots: [library]))
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: catalog, clipPlayer: GStreamerClipPlayer(sharingOutputOf: engine))
        let nodeTask = Task { await node.run() }
        let commander = try Commander(url: url, topics: configuration.topics)
        let events = try EventClock(url: url, topic: configuration.topics.events)
        try await queue(music, library: library, with: commander)

        let bare = try BarePlaybin(uri: "file://" + music.path, output: .wav(path: bareWAV.path))
        let nodeArrivals = ArrivalLog(), bareArrivals = ArrivalLog()
        let nodePoller = try WAVPoller(path: nodeWAV.path, probe: nodeArrivals)
        let barePoller = try WAVPoller(path: bareWAV.path, probe: bareArrivals)
        guard commander.send("play", "{}") else { throw BenchError("the node did not play") }
        bare.play()
        try await Task.sleep(for: .seconds(1.5))

        let rounds = rounds, clipSeconds = clipSeconds
        let clipURL = clip.absoluteString
        let timings = await onDedicatedThread { () -> [RoundTimes] in
            var timings: [RoundTimes] = []
            for round in 0...rounds {
                var times = RoundTimes()
                usleep(500_000)
                times.node = Self.announce(clipURL, commander: commander, events: events, clipSeconds: clipSeconds)
                usleep(1_000_000)
                times.bare = Self.bareClip(clipURL, over: bare, output: .wav(path: bareWAV.path))
                usleep(1_000_000)
                if round > 0 { timings.append(times) }
            }
            return timings
        }
        nodePoller.stop()
        barePoller.stop()
        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await events.client.shutdown()

        let nodeAudio = try WAVFile(contentsOf: nodeWAV), bareAudio = try WAVFile(contentsOf: bareWAV)
        var figures = AnnounceFigures()
        for times in timings {
            if let start = times.node.start {
                figures.add(node: Self.measure(nodeAudio, nodeArrivals, from: start, clipSeconds: clipSeconds))
                if let reply = times.node.reply { figures.reply.append(nanoseconds: reply - start) }
                if let started = times.node.started { figures.started.append(nanoseconds: started - start) }
            }
            if let start = times.bare.start {
                figures.add(bare: Self.measure(bareAudio, bareArrivals, from: start, clipSeconds: clipSeconds))
            }
        }
        figures.print(rounds: timings.count)
    }

    // MARK: - One round of each

    /// The node's round: `announce` the clip, wait for its end; (publish, reply, announcementStarted) times.
    static func announce(_ clip: String, commander: Commander, events: EventClock, clipSeconds: Double) -> SideTimes {
        var times = SideTimes()
        let start = monotonicNanoseconds()
        guard commander.send("announce", #"{"url":"\#(clip)"}"#) else { return times }
        let reply = monotonicNanoseconds()
        guard let id = commander.lastReply?["data"]?["announcementId"]?.stringValue else {
            print("warning: announce answered \(commander.lastStatus ?? "nothing")")
            return times
        }
        times.start = start
        times.reply = reply
        times.started = events.wait(for: .announcementStarted, id: id, timeout: 5)
        if events.wait(for: .announcementFinished, id: id, timeout: clipSeconds + 10) == nil {
            print("warning: announcement \(id) did not finish")
        }
        return times
    }

    /// The floor's round: duck the bare music, build a playbin for the clip into a second output mixing
    /// into the music's file, set it PLAYING; on its end of stream, set the music's volume back.
    static func bareClip(_ clip: String, over music: BarePlaybin, output: AudioSinkDescription) -> SideTimes {
        var times = SideTimes()
        let start = monotonicNanoseconds()
        mn_object_set_double(music.output.volume, "volume", duck)
        guard let playbin = gst_element_factory_make("playbin", nil),
              let sink = try? AudioSink.make(output, mixingInto: music.output.wavWriter,
                                             logger: Logger(label: "medianode-bench.clip"))
        else { return times }
        gst_object_ref_sink(playbin)
        mn_object_set_string(playbin, "uri", clip)
        mn_object_set_object(playbin, "audio-sink", sink.element)
        // As the node's clip player: audio only, no soft volume.
        let unwanted: gint = 1 << 0 | 1 << 2 | 1 << 3 | 1 << 4
        mn_object_set_int(playbin, "flags", mn_object_get_int(playbin, "flags") & ~unwanted)
        gst_element_set_state(playbin, GST_STATE_PLAYING)
        times.start = start
        if let bus = gst_element_get_bus(playbin) {
            let mask = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
            if let message = gst_bus_timed_pop_filtered(bus, 30_000_000_000, mask) {
                mn_object_set_double(music.output.volume, "volume", 1)
                if mn_message_type(message) != GST_MESSAGE_EOS { print("warning: the bare clip failed") }
                mn_message_unref(message)
            }
            mn_object_unref(bus)
        }
        mn_object_set_double(music.output.volume, "volume", 1)
        gst_element_set_state(playbin, GST_STATE_NULL)
        mn_object_unref(playbin)
        mn_object_unref(sink.element)
        mn_object_unref(sink.volume)
        return times
    }

    // MARK: - Reading the WAV

    /// One clip in a WAV from `start` (monotonic ns) on: when its first sample arrived (ns), and how long after
    /// its last sample the music was back within 1 dB (audio seconds), with the levels.
    static func measure(_ wav: WAVFile, _ arrivals: ArrivalLog, from start: Int64, clipSeconds: Double) -> Measured? {
        let rate = Double(wav.sampleRate)
        let from = Double(arrivals.frames(before: start)) / rate
        guard let clip = wav.toneSpan(clipFrequency, from: from, to: from + clipSeconds + 2.5) else { return nil }
        let heard = arrivals.arrival(ofFrame: Int(clip.start * rate))
        // Music levels in 50 ms stretches (22 whole cycles of 440 Hz; 75 of the clip's 1,500 Hz, unseen).
        let window = 0.05
        let level = wav.toneLevel(musicFrequency, from: clip.start - 0.7, length: 0.5)
        let ducked = wav.toneLevel(musicFrequency, from: clip.start + 0.1, length: max(window, clip.end - clip.start - 0.2))
        // The step up is the middle of the first stretch halfway between the two levels; the music is back
        // from the first stretch starting at or after it that is within 1 dB, as is each for 100 ms after.
        let halfway = (ducked + level) / 2, withinDecibel = level * pow(10, -1.0 / 20)
        var time = clip.end - window / 2
        var step: Double?, back: Double?
        while back == nil, time + window + 0.1 < wav.duration, time < clip.end + 2 {
            if step == nil, wav.toneLevel(musicFrequency, from: time, length: window) >= halfway { step = time + window / 2 }
            if let step, time >= step, stride(from: time, through: time + 0.1, by: 0.01).allSatisfy({
                wav.toneLevel(musicFrequency, from: $0, length: window) >= withinDecibel
            }) {
                back = time
            }
            time += 0.001
        }
        return Measured(heard: heard.map { $0 - start }, back: back.map { $0 - clip.end }, level: level, ducked: ducked,
                        clipLength: clip.end - clip.start)
    }
}

// MARK: - Figures

struct SideTimes {
    var start: Int64?
    var reply: Int64?
    var started: Int64?
}

struct RoundTimes {
    var node = SideTimes()
    var bare = SideTimes()
}

struct Measured {
    /// Nanoseconds from the start to the clip's first sample in the output.
    var heard: Int64?
    /// Audio seconds from the clip's last sample to the music back within 1 dB.
    var back: Double?
    var level: Double
    var ducked: Double
    var clipLength: Double
}

struct AnnounceFigures {
    var heard = (node: LatencySamples(), bare: LatencySamples())
    var back = (node: LatencySamples(), bare: LatencySamples())
    var reply = LatencySamples()
    var started = LatencySamples()
    var duckDecibels = (node: [Double](), bare: [Double]())
    var lengths = (node: [Double](), bare: [Double]())
    var missed = (node: 0, bare: 0)

    mutating func add(node measured: Measured?) {
        guard let measured, let heardAt = measured.heard, let back = measured.back else {
            missed.node += 1
            return
        }
        heard.node.append(nanoseconds: heardAt)
        self.back.node.append(.seconds(back))
        duckDecibels.node.append(20 * log10(max(1e-9, measured.ducked / measured.level)))
        lengths.node.append(measured.clipLength)
    }

    mutating func add(bare measured: Measured?) {
        guard let measured, let heardAt = measured.heard, let back = measured.back else {
            missed.bare += 1
            return
        }
        heard.bare.append(nanoseconds: heardAt)
        self.back.bare.append(.seconds(back))
        duckDecibels.bare.append(20 * log10(max(1e-9, measured.ducked / measured.level)))
        lengths.bare.append(measured.clipLength)
    }

    func print(rounds: Int) {
        func row(_ name: String, _ samples: LatencySamples) {
            Swift.print(String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs", name as NSString,
                               samples.values.count, samples.median, samples.percentile(90), samples.percentile(99)))
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
        report("announce publish -> the clip's first sample in the output (\(rounds) rounds, wav: sink):",
               subject: ("medianode: announce over its music", heard.node),
               floor: ("floor: bare playbin built, set PLAYING", heard.bare))
        row("medianode: reply on P/result", reply)
        row("medianode: announcementStarted on P/events", started)
        report("the clip's last sample -> the music back within 1 dB (audio time in the WAV):",
               subject: ("medianode: the duck given back", back.node),
               floor: ("floor: EOS off the bus, volume set at once", back.bare))
        Swift.print(String(format: "  music under the clip (median): medianode %.1f dB, floor %.1f dB; clip heard %.3f s and %.3f s; "
                + "rounds not measured: %d and %d", median(duckDecibels.node), median(duckDecibels.bare),
                           median(lengths.node), median(lengths.bare), missed.node, missed.bare))
    }
}
