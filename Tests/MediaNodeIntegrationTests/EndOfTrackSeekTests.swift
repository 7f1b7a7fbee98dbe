import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Seeking in the last seconds of an item, when playbin has already opened the next")
    struct EndOfTrackSeekTests {
        /// Rounds of the sequence; `MEDIANODE_END_SEEK_ROUNDS` runs more.
        static var rounds: Int {
            ProcessInfo.processInfo.environment["MEDIANODE_END_SEEK_ROUNDS"].flatMap(Int.init) ?? 20
        }

        @Test("repeat one with a seek to 1 s before the end replays, then repeat all with the same seek wraps: every seek succeeds and lands there")
        func seekNearTheEnd() async throws {
            let library = try ToneLibrary("end-seek", tones: [(440, 2), (880, 3)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            let first = library.identifier(0), last = library.identifier(1)
            var failures: [String] = []
            var seeks = 0
            #expect(try await node.status("changeRepeatMode", #""repeatType":"one""#) == "success")
            #expect(try await node.status("nextTrack") == "success")
            #expect(try await node.status("play") == "success")
            for round in 1...Self.rounds {
                do {
                    // In the last half second playbin has read the whole item and opened its successor.
                    try await node.waitForPosition(atLeast: 2.6, timeout: 5)
                    let replays = await node.events(ofType: "trackStarted", for: last).count
                    seeks += 1
                    try await node.seekOneSecondBeforeTheEnd(round: round, failures: &failures)
                    try await node.waitUntil("round \(round): the replay under repeat one", timeout: 3) {
                        await node.events(ofType: "trackStarted", for: last).count > replays
                    }
                    // Right after the replay started, as a listener switching modes would.
                    #expect(try await node.status("changeRepeatMode", #""repeatType":"all""#) == "success")
                    let wraps = await node.events(ofType: "trackStarted", for: first).count
                    seeks += 1
                    try await node.seekOneSecondBeforeTheEnd(round: round, failures: &failures)
                    try await node.waitUntil("round \(round): the wrap to the first item under repeat all", timeout: 3) {
                        await node.events(ofType: "trackStarted", for: first).count > wraps
                    }
                    #expect(try await node.status("changeRepeatMode", #""repeatType":"one""#) == "success")
                    #expect(try await node.status("nextTrack") == "success")
                } catch {
                    failures.append("round \(round): \(error)")
                    break
                }
            }
            print("end-of-track seeks: \(seeks - failures.count)/\(seeks) succeeded and landed")
            #expect(failures.isEmpty, "\(failures)")
            await node.stop()
        }
    }
}

private extension RunningNode {
    /// Seeks the 3 s item to 2 s; the seek must succeed, now playing must show the place, and the item's
    /// end must come about a second later, not at once (the seek landed in the next item) or never.
    func seekOneSecondBeforeTheEnd(round: Int, failures: inout [String]) async throws {
        let last = await nowPlaying?["identifier"]?.stringValue
        let endings = await events(ofType: "trackEnded", for: last).count
        let reply = try await send("changePlaybackPosition", #""positionTime":2.0"#)
        let sentAt = Date()
        guard reply["status"] == "success" else {
            failures.append("round \(round): \(reply.jsonString)")
            throw WaitTimeout("a successful seek")
        }
        try await waitUntil(topics.nowPlaying, "round \(round): now playing at 2 s") {
            $0["identifier"]?.stringValue == last && ($0["elapsedPlaybackTime"]?.numberValue ?? 0) >= 1.95
        }
        try await waitUntil("round \(round): the item's end after the seek", timeout: 3) {
            await events(ofType: "trackEnded", for: last).count > endings
        }
        let tail = Date().timeIntervalSince(sentAt)
        if tail < 0.6 { failures.append("round \(round): the item ended \(tail) s after the seek to 1 s before its end") }
    }

    func events(ofType type: String, for identifier: String?) async -> [JSONValue] {
        await events().filter { $0["type"]?.stringValue == type && $0["identifier"]?.stringValue == identifier }
    }

    /// Waits until `condition` holds.
    func waitUntil(_ what: String, timeout: Double, _ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw WaitTimeout("\(what); now playing: \(await nowPlaying?.jsonString ?? "nothing")")
    }
}
