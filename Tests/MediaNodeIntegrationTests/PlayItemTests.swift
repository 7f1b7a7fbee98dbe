import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

@Suite("playItem, prepareQueue and saved progress with real audio", .serialized)
struct PlayItemTests {
    @Test("playItem by index path plays the album as the queue and answers once audio plays; errors say why")
    func playItemStatuses() async throws {
        let rig = try await ContentRig.start()
        let reply = try await rig.request("playItem", #"{"id":"p1","indexPath":[0,1,0,1]}"#, id: "p1")
        #expect(reply["status"] == "success")
        // Answered only once playing: now playing already says so, with the album as the queue.
        let nowPlaying = try await rig.client.first {
            $0.topic == rig.topics.nowPlaying && (try? JSONValue(parsing: $0.payload))?["state"] == "playing"
        }
        let document = try JSONValue(parsing: nowPlaying.payload)
        #expect(document["playbackQueueIndex"] == 1 && document["playbackQueueCount"] == 3)
        #expect(document["title"] == "Tone 660")
        let identifiers = try #require(document["nowPlayingIdentifiers"]?.arrayValue)
        #expect(identifiers.count == 4)
        #expect(identifiers.first == .string(ContentItem.Section.library))
        #expect(identifiers.last == document["identifier"])

        #expect(try await rig.request("playItem", #"{"id":"p2","identifier":"nope"}"#, id: "p2")["status"] == "noSuchContent")
        #expect(try await rig.request("playItem", #"{"id":"p3","indexPath":[0,1,0]}"#, id: "p3")["status"] == "commandFailed")
        #expect(try await rig.request("playItem", #"{"id":"p4","indexPath":[9,9]}"#, id: "p4")["status"] == "noSuchContent")
        // By identifier: its album becomes the queue.
        let beta = try #require(await rig.request("browse", #"{"id":"b","indexPath":[0,1,1]}"#, id: "b")["data"]?["children"]?[1]?["identifier"]?.stringValue)
        let byIdentifier = try await rig.request("playItem", #"{"id":"p5","identifier":"\#(beta)"}"#, id: "p5")
        #expect(byIdentifier["status"] == "success")
        let queue = try await rig.client.first {
            $0.topic == rig.topics.queue && (try? JSONValue(parsing: $0.payload))?["index"] == 1
                && (try? JSONValue(parsing: $0.payload))?["identifiers"]?.arrayValue?.count == 2
        }
        #expect(try JSONValue(parsing: queue.payload)["identifiers"]?[1] == .string(beta))
        await rig.stop()
    }

    @Test("prepareQueue loads without playing; the next play starts it; unknown identifiers answer noSuchContent")
    func prepareQueueLoadsWithoutPlaying() async throws {
        let rig = try await ContentRig.start()
        let albums = try #require(await rig.request("browse", #"{"id":"b","indexPath":[0,1,0]}"#, id: "b")["data"])
        let ids = try #require(albums["children"]?.arrayValue?.compactMap { $0["identifier"]?.stringValue })
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        let reply = try await rig.request("prepareQueue", #"{"id":"q1","identifiers":[\#(list)]}"#, id: "q1")
        #expect(reply["status"] == "success")
        let paused = try await rig.client.first {
            $0.topic == rig.topics.nowPlaying && (try? JSONValue(parsing: $0.payload))?["state"] == "paused"
        }
        #expect(try JSONValue(parsing: paused.payload)["playbackQueueCount"] == 3)
        #expect(await rig.client.messages(on: rig.topics.nowPlaying).allSatisfy {
            (try? JSONValue(parsing: $0.payload))?["state"] != "playing"
        })
        #expect(try await rig.request("play", #"{"id":"q2"}"#, id: "q2")["status"] == "success")
        _ = try await rig.client.first {
            $0.topic == rig.topics.nowPlaying && (try? JSONValue(parsing: $0.payload))?["state"] == "playing"
        }
        let unknown = try await rig.request("prepareQueue", #"{"id":"q3","identifiers":["\#(ids[0])","nope"]}"#, id: "q3")
        #expect(unknown["status"] == "noSuchContent")
        let container = try await rig.request("prepareQueue", #"{"id":"q4","identifiers":["\#(albums["item"]?["identifier"]?.stringValue ?? "")"]}"#, id: "q4")
        #expect(container["status"] == "commandFailed")
        await rig.stop()
    }

    @Test("progress is saved on pause, published as playbackProgress, and after a restart playItem resumes there")
    func restartResumesSavedProgress() async throws {
        let broker = try await MosquittoBroker()
        let directory = try AudioFixtures.makeTemporaryDirectory("resume")
        // Long enough that a pause that lands late on a loaded machine is still far from the last 5 s,
        // where a saved position counts as finished and the item starts over.
        _ = try await ContentRig.makeLibrary(in: directory, seconds: 20)
        let first = try await ContentRig.start(broker: broker, directory: directory)
        #expect(try await first.request("playItem", #"{"id":"p","indexPath":[0,1,0,0]}"#, id: "p")["status"] == "success")
        try await Task.sleep(for: .seconds(2))
        #expect(try await first.request("pause", #"{"id":"pause"}"#, id: "pause")["status"] == "success")
        // The album node, published when browsed, shows the saved progress of its first track.
        _ = try await first.request("browse", #"{"id":"b","indexPath":[0,1,0]}"#, id: "b")
        let album = try await first.waitForNode([0, 1, 0]) {
            ($0?["children"]?[0]?["playbackProgress"]?.numberValue ?? -1) > 0.05
        }
        let progress = try #require(album?["children"]?[0]?["playbackProgress"]?.numberValue)
        #expect(progress > 0.05 && progress < 0.5)

        await first.stop(stopBroker: false, removeFiles: false)

        let second = try await ContentRig.start(broker: broker, directory: directory)
        #expect(try await second.request("playItem", #"{"id":"p","indexPath":[0,1,0,0]}"#, id: "p")["status"] == "success")
        let playing = try await second.client.first {
            $0.topic == second.topics.nowPlaying && (try? JSONValue(parsing: $0.payload))?["state"] == "playing"
        }
        let elapsed = try #require(try JSONValue(parsing: playing.payload)["elapsedPlaybackTime"]?.numberValue)
        #expect(elapsed > 1.0, "resumed at \(elapsed) s")
        await second.stop()
    }
}
