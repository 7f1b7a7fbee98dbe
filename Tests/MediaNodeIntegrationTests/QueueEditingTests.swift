import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// addToQueue, removeFromQueue and moveQueueItem as a listener hears them and a dashboard sees them.
    @Suite("Queue editing")
    struct QueueEditingTests {
        @Test("edits show in P/queue and now playing, and what plays next is what the edited queue says")
        func editsAsHeard() async throws {
            let library = try await ToneLibrary("queue-edit", tones: [(440, 12), (660, 12), (880, 12)])
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            let (a, b, c) = (library.identifier(0), library.identifier(1), library.identifier(2))
            try await node.waitForState("paused")

            #expect(try await node.status("moveQueueItem", #""from":2,"to":1"#) == "success")
            try await node.waitUntil(node.topics.queue, "moved") { $0["identifiers"] == [.string(a), .string(c), .string(b)] }
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1)
            #expect(isNear(try node.recentTone(), 440), "the playing item is untouched by the move")

            #expect(try await node.status("removeFromQueue", #""index":0"#) == "success")
            let moved = try await node.waitUntil(node.topics.nowPlaying, "the next item plays") {
                $0["identifier"] == .string(c) && $0["state"] == "playing"
            }
            #expect(moved["playbackQueueIndex"] == 0 && moved["playbackQueueCount"] == 2)
            try await node.waitUntil(node.topics.queue, "removed") { $0["identifiers"] == [.string(c), .string(b)] }
            let removedAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: removedAt + 1.5)
            #expect(isNear(try node.recentTone(), 880), "removing the playing item moves on to the next one")

            #expect(try await node.status("addToQueue", #""identifiers":["\#(a)"],"position":"next""#) == "success")
            let added = try await node.waitUntil(node.topics.nowPlaying, "count 3") { $0["playbackQueueCount"] == 3 }
            #expect(added["identifier"] == .string(c) && added["playbackQueueIndex"] == 0, "the playing item plays on")
            #expect(await node.queue?["identifiers"] == [.string(c), .string(a), .string(b)])
            #expect(try await node.status("nextTrack") == "success")
            try await node.waitUntil(node.topics.nowPlaying, "the added item") { $0["identifier"] == .string(a) }
            let nextAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: nextAt + 1.5)
            #expect(isNear(try node.recentTone(), 440), "the item added next plays next")
        }

        @Test("bad edits are refused with a clear message and change nothing")
        func refusals() async throws {
            let library = try await ToneLibrary("queue-refuse", tones: [(440, 10), (660, 10)])
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            let before = try #require(await node.queue)

            let outside = try await node.send("removeFromQueue", #""index":2"#)
            #expect(outside["status"] == "commandFailed")
            #expect(outside["message"]?.stringValue?.contains("outside the queue of 2 entries") == true, "\(outside.jsonString)")
            let unknown = try await node.send("addToQueue", #""identifiers":["\#(library.identifier(0))","no-such-item"]"#)
            #expect(unknown["status"] == "noSuchContent" && unknown["message"] == "no item 'no-such-item'")
            let badMove = try await node.send("moveQueueItem", #""from":0,"to":"1""#)
            #expect(badMove["status"] == "commandFailed" && badMove["message"] == "'to' must be a number, got a string")
            let badPosition = try await node.send("addToQueue", #""identifiers":["x"],"position":"first""#)
            #expect(badPosition["status"] == "commandFailed")
            try await sleep(0.3)
            #expect(await node.queue == before, "nothing changed")
            #expect(await node.nowPlaying?["playbackQueueCount"] == 2)
        }
    }
}
