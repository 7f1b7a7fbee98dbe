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
            let library = try await ToneLibrary("end-seek", tones: [(440, 2), (880, 3)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            let first = library.identifier(0), last = library.identifier(1)
            var failures: [String] = []
            var seeks = 0, late = 0, restarted = 0
            #expect(try await node.status("changeRepeatMode", #""repeatType":"one""#) == "success")
            #expect(try await node.status("nextTrack") == "success")
            #expect(try await node.status("play") == "success")
            for round in 1...Self.rounds {
                do {
                    // A seek too late to judge can leave the queue on the other item: each round starts on
                    // the 3 s one (nextTrack's reply comes after now playing shows where it went).
                    if round > 1, await node.nowPlaying?["identifier"]?.stringValue != last {
                        restarted += 1
                        #expect(try await node.status("playItem", #""identifier":"\#(last)""#) == "success")
                    }
                    // In the last half second playbin has read the whole item and opened its successor.
                    try await node.waitForPosition(atLeast: 2.6, timeout: 5)
                    let replays = await node.events(ofType: "trackStarted", for: last).count
                    seeks += 1
                    try await node.seekOneSecondBeforeTheEnd(round: round, failures: &failures, late: &late)
                    try await node.waitUntil("round \(round): the replay under repeat one", timeout: 6) {
                        await node.events(ofType: "trackStarted", for: last).count > replays
                    }
                    // Right after the replay started, as a listener switching modes would.
                    #expect(try await node.status("changeRepeatMode", #""repeatType":"all""#) == "success")
                    let wraps = await node.events(ofType: "trackStarted", for: first).count
                    seeks += 1
                    try await node.seekOneSecondBeforeTheEnd(round: round, failures: &failures, late: &late)
                    try await node.waitUntil("round \(round): the wrap to the first item under repeat all", timeout: 6) {
                        await node.events(ofType: "trackStarted", for: first).count > wraps
                    }
                    #expect(try await node.status("changeRepeatMode", #""repeatType":"one""#) == "success")
                    #expect(try await node.status("nextTrack") == "success")
                } catch {
                    failures.append("round \(round): \(error)")
                    break
                }
            }
            print("end-of-track seeks: \(seeks - failures.count)/\(seeks) succeeded and landed; \(late) sent too late to judge; "
                  + "\(restarted) rounds started again on the 3 s item")
            #expect(failures.isEmpty, "\(failures)")
            #expect(late <= seeks / 4, "\(late) of \(seeks) seeks were sent within 0.2 s of the end: too few judged")
            #expect(restarted <= late, "\(restarted) rounds began on the wrong item, \(late) seeks were late")
            await node.stop()
        }
    }
}

private extension RunningNode {
    /// Seeks the 3 s item to 2 s; the seek must succeed, now playing must show the place, and the item's
    /// end must come about a second later, not at once (the seek landed in the next item) or never.
    ///
    /// On a loaded machine the command can reach the node after the item has ended by itself: a seek sent
    /// within 0.2 s of the end (by now playing's position) whose item then ends at once, or whose replay
    /// starts from 0, is counted in `late`, not as a failure.
    func seekOneSecondBeforeTheEnd(round: Int, failures: inout [String], late: inout Int) async throws {
        let last = await nowPlaying?["identifier"]?.stringValue
        let endings = await events(ofType: "trackEnded", for: last).count
        let positionAtSend = livePosition(await nowPlaying) ?? 0
        let reply = try await send("changePlaybackPosition", #""positionTime":2.0"#)
        let sentAt = Date()
        guard reply["status"] == "success" else {
            failures.append("round \(round): \(reply.jsonString)")
            throw WaitTimeout("a successful seek")
        }
        do {
            try await waitUntil(topics.nowPlaying, "round \(round): now playing at 2 s") {
                $0["identifier"]?.stringValue == last && ($0["elapsedPlaybackTime"]?.numberValue ?? 0) >= 1.95
            }
            try await waitUntil("round \(round): the item's end after the seek", timeout: 6) {
                await events(ofType: "trackEnded", for: last).count > endings
            }
        } catch where positionAtSend > 2.8 {
            // The item ended by itself before the seek reached it, and the replay started from 0.
            late += 1
            return
        }
        let tail = Date().timeIntervalSince(sentAt)
        if tail < 0.6 {
            if positionAtSend > 2.8 {
                late += 1
            } else {
                failures.append("round \(round): the item ended \(tail) s after the seek to 1 s before its end, sent at \(positionAtSend) s")
            }
        }
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
