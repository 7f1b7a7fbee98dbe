import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// `search` through a real broker, against a node with a real catalog file and real GStreamer.
@Suite("search command", .serialized)
struct SearchCommandTests {
    @Test("a search finds a track by its words, and playItem of the result plays it")
    func searchThenPlay() async throws {
        let rig = try await ContentRig.start()
        let running = rig.running

        let reply = try await rig.request("search", #"{"id":"s","query":"TONE 1540"}"#, id: "s")
        #expect(reply["status"] == "success" && reply["data"]?["total"] == 1, "\(reply.jsonString)")
        let item = try #require(reply["data"]?["items"]?[0])
        #expect(item["title"] == "Tone 1540" && item["isPlayable"] == true && item["isContainer"] == false)
        // The full item, as contentItem answers it.
        let identifier = try #require(item["identifier"]?.stringValue)
        let lookup = try await rig.request("contentItem", #"{"id":"c","identifier":"\#(identifier)"}"#, id: "c")
        #expect(lookup["data"] == item)

        let play = try await rig.request("playItem", #"{"id":"p","identifier":"\#(identifier)"}"#, id: "p")
        #expect(play["status"] == "success", "\(play.jsonString)")
        let nowPlaying = try await running.waitForState("playing")
        #expect(nowPlaying["identifier"]?.stringValue == identifier && nowPlaying["title"] == "Tone 1540")
        _ = try await running.waitForAudio(atLeast: 1.0)
        let heard = try #require(try running.recentTone())
        #expect(isNear(heard, 1540, within: 20), "heard \(heard) Hz")
        await rig.stop()
    }

    @Test("playItem of an artist found by search plays their first album from its first track")
    func playContainerResult() async throws {
        let rig = try await ContentRig.start()
        let running = rig.running
        let reply = try await rig.request("search", #"{"id":"s","query":"artist beta"}"#, id: "s")
        let artist = try #require(reply["data"]?["items"]?[0])
        #expect(artist["title"] == "Artist Beta" && artist["isContainer"] == true && artist["isPlayable"] == false)
        let artistID = try #require(artist["identifier"]?.stringValue)

        let play = try await rig.request("playItem", #"{"id":"p","identifier":"\#(artistID)"}"#, id: "p")
        #expect(play["status"] == "success", "\(play.jsonString)")
        let nowPlaying = try await running.waitForState("playing")
        #expect(nowPlaying["title"] == "Tone 1320" && nowPlaying["albumTitle"] == "Beta")
        #expect(nowPlaying["playbackQueueCount"] == 2 && nowPlaying["playbackQueueIndex"] == 0)
        #expect(nowPlaying["nowPlayingIdentifiers"]?[0]?.stringValue == artistID)
        _ = try await running.waitForAudio(atLeast: 1.0)
        let heard = try #require(try running.recentTone())
        #expect(isNear(heard, 1320, within: 20), "heard \(heard) Hz")
        await rig.stop()
    }

    @Test("results are ranked, counted before the limit, and capped by the content limits")
    func rankingLimitsAndContext() async throws {
        let rig = try await ContentRig.start()

        // The artist by name first, then what names them: their album and its tracks, in catalog order.
        let beta = try await rig.request("search", #"{"id":"b","query":"artist beta"}"#, id: "b")
        let titles = beta["data"]?["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["Artist Beta", "Beta", "Tone 1320", "Tone 1540"], "\(beta.jsonString)")
        #expect(beta["data"]?["items"]?[0]?["isContainer"] == true)

        let all = try await rig.request("search", #"{"id":"a","query":"artist"}"#, id: "a")
        #expect(all["data"]?["total"] == 9 && all["data"]?["items"]?.arrayValue?.count == 9)
        let two = try await rig.request("search", #"{"id":"l","query":"artist","limit":2}"#, id: "l")
        #expect(two["data"]?["total"] == 9 && two["data"]?["items"]?.arrayValue?.count == 2)

        // While limits are enforced no answer lists more than a list may show; the total still counts all.
        try await rig.client.publish(
            rig.topics.context, #"{"contentLimitsEnforced":true,"enforcedContentItemsCount":3,"enforcedContentTreeDepth":3}"#)
        let capped = try await rig.request("search", #"{"id":"x","query":"artist"}"#, id: "x")
        #expect(capped["data"]?["total"] == 9 && capped["data"]?["items"]?.arrayValue?.count == 3)
        await rig.stop()
    }

    @Test("an empty or over-long query is refused; operators and quotes are plain text; no match is success")
    func badAndHostileQueries() async throws {
        let rig = try await ContentRig.start()
        let refused = [
            (#"{"id":"e0","query":""}"#, "'query' must not be empty"),
            (#"{"id":"e1","query":"\#(String(repeating: "x", count: 201))"}"#, "at most 200 characters, got 201"),
            (#"{"id":"e2","query":7}"#, "'query' must be a string"),
            (#"{"id":"e3"}"#, "missing field 'query'"),
            (#"{"id":"e4","query":"tone","limit":-2}"#, "'limit' must be a whole number"),
        ]
        for (index, (payload, message)) in refused.enumerated() {
            let reply = try await rig.request("search", payload, id: "e\(index)")
            #expect(reply["status"] == "commandFailed" && reply["code"] == 200)
            #expect(reply["message"]?.stringValue?.contains(message) == true, "\(reply.jsonString)")
        }
        for (index, query) in [#"NEAR(\"tone\" alpha)"#, #"\""#, "*", "-tone", "tone AND (", "'; DROP TABLE item; --"]
            .enumerated() {
            let reply = try await rig.request("search", #"{"id":"h\#(index)","query":"\#(query)"}"#, id: "h\(index)")
            #expect(reply["status"] == "success", "\(query): \(reply.jsonString)")
        }
        // The words of "tone AND (" are literal: no title holds "and".
        let literal = try await rig.request("search", #"{"id":"w","query":"-tone 44"}"#, id: "w")
        #expect(literal["data"]?["items"]?[0]?["title"] == "Tone 440" && literal["data"]?["total"] == 1)
        let none = try await rig.request("search", #"{"id":"n","query":"zzzz"}"#, id: "n")
        #expect(none["status"] == "success" && none["data"] == ["items": [], "total": 0])
        // The catalog is untouched.
        #expect(try await rig.database.summary().playables == 5)
        await rig.stop()
    }
}
