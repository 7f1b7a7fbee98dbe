import Foundation

/// Drives the node over MQTT and the floor directly, from one measuring thread (it blocks on replies).
struct TrackChangeRig: Sendable {
    let commander: Commander
    let listener: Listener
    /// When tone tracks start in the node's WAV.
    let toneStarts: ToneStartProbe
    let setup: BenchLibrary
    let trackSeconds: Double

    // MARK: - Steady playback

    /// Plays the long tone and counts everything the node publishes once tags, duration and the anchor
    /// have settled.
    func measureSteady(seconds: Double) {
        guard commander.send("playItem", #"{"identifier":"\#(setup.steadyIdentifier)"}"#) else { return }
        usleep(3_000_000)
        let start = monotonicNanoseconds()
        usleep(useconds_t(seconds * 1e6))
        let end = monotonicNanoseconds()
        _ = commander.send("pause", "{}")
        let arrivals = listener.all()
        let window = arrivals.filter { $0.time > start && $0.time <= end }
        let nowPlaying = window.filter { $0.topic == listener.topics.nowPlaying }
        let perMinute = 60 / seconds
        print(String(format: "steady playback of one item, %.0f s counted (everything the node published under its prefix):", seconds))
        print(String(format: "  all topics:   %.1f messages/min, %.0f bytes/min (topic + payload)",
                     Double(window.count) * perMinute, Double(window.map(\.bytes).reduce(0, +)) * perMinute))
        print(String(format: "  P/nowplaying: %.1f messages/min, %.0f bytes/min",
                     Double(nowPlaying.count) * perMinute, Double(nowPlaying.map(\.bytes).reduce(0, +)) * perMinute))
        let byTopic = Dictionary(grouping: window, by: \.topic).sorted { $0.key < $1.key }
        for (topic, messages) in byTopic where topic != listener.topics.nowPlaying {
            print(String(format: "    of which %@: %.1f messages/min, %.0f bytes/min", topic as NSString,
                         Double(messages.count) * perMinute, Double(messages.map(\.bytes).reduce(0, +)) * perMinute))
        }
        if let last = arrivals.last(where: { $0.time <= end && $0.nowPlaying?["state"] == "playing" }) {
            print("  for scale: republishing that now playing every second (a position tick) would be 60 messages/min, "
                + "\(60 * last.bytes) bytes/min")
        }
    }

    // MARK: - Natural ends

    /// The album's tone tracks start after silent ones; the moment each is first heard (in the node's WAV,
    /// and in the floor's output) is the track change. Node: from then to the now playing naming it.
    /// Floor: a bare playbin playing the same files gaplessly at the same time, from then to its bus
    /// reader seeing the STREAM_START. Both are negative when the notice comes before the first buffer is
    /// heard (the sink posts STREAM_START before rendering that buffer, which waits for its time).
    func measureEndOfStream(count: Int) throws -> TrackChangeResult {
        let files = Array(setup.albumFiles.prefix(2 * count))
        let floorProbe = ToneStartProbe()
        let floor = try GaplessPlaybin(uris: files.map { "file://" + $0.path }, observer: floorProbe)
        let start = monotonicNanoseconds()
        guard commander.send("playItem", #"{"identifier":"\#(setup.albumIdentifiers[0])"}"#) else {
            throw BenchError("playItem was not answered")
        }
        floor.play()
        let deadline = monotonicNanoseconds() + Int64((Double(files.count) * trackSeconds * 2 + 15) * 1e9)
        while monotonicNanoseconds() < deadline {
            let nodeDone = listener.all().contains { $0.time > start && $0.nowPlaying?["state"] == "stopped" }
            if nodeDone && floor.streamStarts.count >= files.count { break }
            usleep(100_000)
        }
        usleep(UInt32(trackSeconds * 1.5e6))
        floor.stop()

        var result = TrackChangeResult(subject: "medianode: heard -> P/nowplaying at a subscriber",
                                       floor: "floor: heard -> bare playbin STREAM_START popped")
        let heard = toneStarts.starts(after: start), floorHeard = floorProbe.starts(after: start)
        let floorStarts = floor.streamStarts
        for k in 0..<count {
            let identifier = setup.albumIdentifiers[2 * k + 1]
            if k < heard.count, let arrival = listener.nowPlaying(identifier, after: start, timeout: 0) {
                result.subjectSamples.append(nanoseconds: arrival.time - heard[k])
            }
            if k < floorHeard.count, 2 * k + 1 < floorStarts.count {
                result.floorSamples.append(nanoseconds: floorStarts[2 * k + 1] - floorHeard[k])
            }
        }
        if heard.count != count || floorHeard.count != count {
            print("warning: heard \(heard.count) tone starts from the node and \(floorHeard.count) from the floor, of \(count);"
                + " the pairs below are not to be trusted")
        }
        return result
    }

    // MARK: - nextTrack

    /// Node: from publishing cmd/nextTrack to the now playing naming the next item at a subscriber.
    /// Floor: the engine's steps done directly on a bare playbin (NULL, the next file, PLAYING) to its
    /// bus reader seeing the STREAM_START. Interleaved in blocks; the first block warms up. The items are
    /// long, so no natural end moves either player on while the other one is measured.
    func measureNextTrack(count: Int) throws -> TrackChangeResult {
        let identifiers = setup.skipIdentifiers
        _ = commander.send("changeRepeatMode", #"{"repeatType":"all"}"#)
        guard commander.send("playItem", #"{"identifier":"\#(identifiers[0])"}"#) else {
            throw BenchError("playItem was not answered")
        }
        let floor = try GaplessPlaybin(uris: setup.skipFiles.map { "file://" + $0.path }, observer: ToneStartProbe())
        floor.play()
        var result = TrackChangeResult(subject: "medianode: publish -> P/nowplaying at a subscriber",
                                       floor: "floor: bare playbin next -> STREAM_START popped")
        var (nodeIndex, floorIndex, done, warmup) = (0, 0, 0, true)
        let block = 10
        while done < count {
            var nodeBlock = LatencySamples(), floorBlock = LatencySamples()
            for _ in 0..<block {
                nodeIndex = (nodeIndex + 1) % identifiers.count
                let sent = monotonicNanoseconds()
                guard commander.send("nextTrack", "{}") else { continue }
                if let arrival = listener.nowPlaying(identifiers[nodeIndex], after: sent) {
                    nodeBlock.append(nanoseconds: arrival.time - sent)
                }
                usleep(150_000)
            }
            for _ in 0..<block {
                floorIndex = (floorIndex + 1) % identifiers.count
                let called = monotonicNanoseconds()
                floor.skip(to: floorIndex)
                if let seen = floor.streamStart(after: called) { floorBlock.append(nanoseconds: seen - called) }
                usleep(150_000)
            }
            if warmup {
                warmup = false
                continue
            }
            result.subjectSamples.values += nodeBlock.values
            result.floorSamples.values += floorBlock.values
            done += block
        }
        floor.stop()
        _ = commander.send("stop", "{}")
        return result
    }
}

/// One kind of track change, through the node and on the floor.
struct TrackChangeResult {
    var subject: String
    var floor: String
    var subjectSamples = LatencySamples()
    var floorSamples = LatencySamples()

    init(subject: String, floor: String) {
        self.subject = subject
        self.floor = floor
    }

    /// In milliseconds, signed (a notice may come before the change is heard), with the difference of
    /// medians: the ratio means little around zero.
    func print(title: String) {
        func row(_ name: String, _ samples: LatencySamples) -> String {
            String(format: "  %-52@ n=%4d  p50 %+8.2f ms  p99 %+8.2f ms", name as NSString, samples.values.count,
                   samples.median / 1000, samples.percentile(99) / 1000)
        }
        Swift.print(title + ":")
        Swift.print(row(subject, subjectSamples))
        Swift.print(row(floor, floorSamples))
        Swift.print(String(format: "  the node adds (p50 - p50): %+.2f ms; (p99 - p99): %+.2f ms",
                           (subjectSamples.median - floorSamples.median) / 1000,
                           (subjectSamples.percentile(99) - floorSamples.percentile(99)) / 1000))
    }
}
