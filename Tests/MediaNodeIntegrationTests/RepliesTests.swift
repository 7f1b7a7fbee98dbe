import Foundation
import MQTTTransport
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Testing
import MediaJSON

@Suite("Replies: exactly one per request, where the requester asked for it")
struct RepliesTests {
    @Test("a request with a response topic gets its reply there, with its correlation data, and on P/result")
    func responseTopicAndCorrelationData() async throws {
        let running = try await RunningNode.start()
        try await running.client.subscribeAndSettle("replies/me")
        let correlation: [UInt8] = [0, 1, 2, 250]
        try await running.client.publish(
            running.topics.command("play"), #"{"id":"rt-1"}"#,
            properties: MQTTProperties(responseTopic: "replies/me", correlationData: correlation))
        let direct = try await running.client.first { $0.topic == "replies/me" }
        #expect(direct.properties.correlationData == correlation)
        let reply = try JSONValue(parsing: direct.payload)
        #expect(reply["id"] == "rt-1")
        #expect(reply["command"] == "play")
        let onResult = try await running.reply(id: "rt-1")
        #expect(onResult == reply)
        await running.stop()
    }

    @Test("a 3.1.1 client gets its reply on P/result")
    func mqtt311Client() async throws {
        let running = try await RunningNode.start(clientVersion: .v311)
        let reply = try await running.request("nextTrack", #"{"id":"v3"}"#, id: "v3")
        #expect(reply["command"] == "nextTrack")
        #expect(reply["code"] != nil)
        await running.stop()
    }

    @Test("a node speaking MQTT 3.1.1 answers and says so in P/info")
    func node311() async throws {
        let running = try await RunningNode.start(nodeVersion: .v311)
        let reply = try await running.request("stop", #"{"id":"n3"}"#, id: "n3")
        #expect(reply["command"] == "stop")
        let info = try JSONValue(parsing: try await running.client.first { $0.topic == running.topics.info }.payload)
        #expect(info["mqttVersion"] == "3.1.1")
        await running.stop()
    }

    @Test("a burst of requests is answered exactly once each, in order")
    func burstAnsweredInOrder() async throws {
        let running = try await RunningNode.start()
        let count = 300
        for index in 0..<count {
            try await running.client.publish(running.topics.command("rating"), #"{"id":"b\#(index)","rating":9}"#)
        }
        _ = try await running.reply(id: "b\(count - 1)")
        let ids = await running.client.messages(on: running.topics.result)
            .compactMap { try? JSONValue(parsing: $0.payload)["id"]?.stringValue }
            .filter { $0.hasPrefix("b") }
        #expect(ids == (0..<count).map { "b\($0)" })
        await running.stop()
    }
}

@Suite("Bad input gets commandFailed with a message that says what was wrong")
struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var command: String
        var payload: [UInt8]
        var expectedFragment: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "malformed JSON", command: "play", payload: Array(#"{"id": "x",}"#.utf8), expectedFragment: "malformed JSON"),
        Case(label: "truncated JSON", command: "pause", payload: Array(#"{"positionTime": 1"#.utf8), expectedFragment: "malformed JSON"),
        Case(label: "JSON that is not an object", command: "play", payload: Array("[1,2]".utf8), expectedFragment: "must be a JSON object"),
        Case(label: "a string where a number belongs", command: "changePlaybackPosition",
             payload: Array(#"{"positionTime":"ten"}"#.utf8), expectedFragment: "'positionTime' must be a number"),
        Case(label: "a missing required field", command: "changeRepeatMode", payload: Array("{}".utf8),
             expectedFragment: "missing field 'repeatType'"),
        Case(label: "a value outside its set", command: "changeShuffleMode",
             payload: Array(#"{"shuffleType":"sometimes"}"#.utf8), expectedFragment: "'shuffleType' must be one of"),
        Case(label: "a rating out of range", command: "rating", payload: Array(#"{"rating":99}"#.utf8),
             expectedFragment: "'rating' must be within 0...5"),
        Case(label: "a rate the player does not accept", command: "changePlaybackRate",
             payload: Array(#"{"playbackRate":3}"#.utf8), expectedFragment: "not one of the player's rates"),
        Case(label: "an unknown command", command: "selfDestruct", payload: [], expectedFragment: "unknown command 'selfDestruct'"),
        Case(label: "an unknown command named in UTF-8", command: "lecture-café", payload: [],
             expectedFragment: "unknown command 'lecture-café'"),
        Case(label: "invalid UTF-8", command: "play", payload: [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D],
             expectedFragment: "not valid UTF-8"),
        Case(label: "a payload over the size limit", command: "play",
             payload: Array("{\"pad\":\"\(String(repeating: "x", count: 70_000))\"}".utf8),
             expectedFragment: "exceeds the limit of 65536 bytes"),
        Case(label: "JSON nested too deep", command: "play",
             payload: Array((String(repeating: "[", count: 500) + String(repeating: "]", count: 500)).utf8),
             expectedFragment: "nested deeper than"),
    ]

    @Test("bad input is refused with a clear message, once, and the node keeps answering", arguments: cases)
    func badInput(_ testCase: Case) async throws {
        let running = try await RunningNode.start()
        try await running.client.publish(running.topics.command(testCase.command), bytes: testCase.payload)
        let reply = try JSONValue(parsing: try await running.client.first { $0.topic == running.topics.result }.payload)
        #expect(reply["status"] == "commandFailed")
        #expect(reply["code"] == 200)
        #expect(reply["command"] == .string(testCase.command))
        let message = reply["message"]?.stringValue ?? ""
        #expect(message.contains(testCase.expectedFragment), "message was: \(message)")
        // A follow-up request is still answered, and the bad one got exactly one reply.
        _ = try await running.request("stop", #"{"id":"after"}"#, id: "after")
        #expect(await running.client.messages(on: running.topics.result).count == 2)
        await running.stop()
    }
}
