import Foundation
import MQTTTransport
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Testing
import MediaJSON

@Suite("Retained state against a real broker")
struct RetainedStateTests {
    @Test("a late subscriber finds status, info, commands, nowplaying and queue retained")
    func retainedStateForLateSubscribers() async throws {
        let running = try await RunningNode.start()
        // Late: after the node's first subscriber saw the last of the initial state go out.
        _ = try await running.client.first { $0.topic == running.topics.queue }
        let late = try TestMQTTClient(brokerURL: running.broker.url)
        try await late.connect()
        try await late.subscribe("medianode/car1/#")
        let status = try await late.first { $0.topic == running.topics.status }
        #expect(status.retain)
        #expect(String(decoding: status.payload, as: UTF8.self) == "online")
        let info = try JSONValue(parsing: try await late.first { $0.topic == running.topics.info }.payload)
        #expect(info["nodeId"] == "car1")
        #expect(info["version"] == .string(MediaNodeVersion.string))
        #expect(info["mqttVersion"] == "5")
        // ISO 8601 in UTC to the second, as ISO8601DateFormatter wrote it before the node formatted it itself.
        let startedAt = try #require(info["startedAt"]?.stringValue)
        #expect(startedAt.count == 20 && startedAt.hasSuffix("Z"), "\(startedAt)")
        let started = try #require(ISO8601DateFormatter().date(from: startedAt), "\(startedAt)")
        #expect(abs(started.timeIntervalSinceNow) < 120, "\(startedAt)")
        let nowPlaying = try await late.first { $0.topic == running.topics.nowPlaying }
        #expect(nowPlaying.retain)
        #expect(try JSONValue(parsing: nowPlaying.payload) == ["state": "stopped"])
        let queue = try JSONValue(parsing: try await late.first { $0.topic == running.topics.queue }.payload)
        #expect(queue["identifiers"] == [])
        await late.disconnect()
        await running.stop()
    }

    @Test("P/commands lists every command of the contract with its enabled flag and parameters")
    func capabilityDocumentListsEveryCommand() async throws {
        let running = try await RunningNode.start()
        let message = try await running.client.first { $0.topic == running.topics.commands }
        let document = try JSONValue(parsing: message.payload)
        let names = [
            "play", "pause", "stop", "togglePlayPause", "nextTrack", "previousTrack", "skipForward", "skipBackward",
            "seekForward", "seekBackward", "changePlaybackPosition", "changePlaybackRate", "changeRepeatMode",
            "changeShuffleMode", "rating", "like", "dislike", "bookmark", "enableLanguageOption",
            "disableLanguageOption", "playItem", "prepareQueue", "browse", "contentItem", "interrupt",
            // Version 1.1
            "search", "changeVolume", "mute", "addToQueue", "removeFromQueue", "moveQueueItem", "download",
            // Version 1.2
            "announce",
            // Version 1.3
            "skipToChapter",
        ]
        for name in names {
            #expect(document[name]?["enabled"]?.boolValue != nil, "\(name) has no enabled flag")
        }
        #expect(document.objectValue?.count == names.count)
        #expect(document["skipForward"]?["preferredIntervals"] == [15])
        #expect(document["changePlaybackRate"]?["supportedPlaybackRates"] == [1.0, 1.5, 2.0, 0.5])
        #expect(document["changePlaybackRate"]?["playerPlaybackRates"] == [0.5, 0.75, 1.0, 1.25, 1.5, 2.0])
        #expect(document["rating"]?["minimumRating"] == 0)
        #expect(document["rating"]?["maximumRating"] == 5)
        #expect(document["like"]?["localizedTitle"] == "Like")
        #expect(document["like"]?["isActive"] == false)
        #expect(document["changeRepeatMode"]?["currentRepeatType"] == "off")
        #expect(document["changeShuffleMode"]?["currentShuffleType"] == "off")
        await running.stop()
    }

    @Test("after the broker is killed and restarted on the same port the node republishes its retained state")
    func republishesAfterBrokerRestart() async throws {
        let running = try await RunningNode.start()
        await running.broker.kill()
        try await running.broker.start()
        // The restarted broker has no persistence: anything on these topics now, the node sent again. It arrives
        // retained if the node got there before this subscriber, live (retain flag clear) if after.
        let fresh = try TestMQTTClient(brokerURL: running.broker.url)
        try await fresh.connect()
        try await fresh.subscribe("medianode/car1/#")
        for topic in [running.topics.status, running.topics.info, running.topics.commands, running.topics.nowPlaying] {
            let message = try await fresh.first(timeout: .seconds(20)) { $0.topic == topic }
            #expect(!message.payload.isEmpty)
        }
        // And a subscriber arriving after all that finds the state retained.
        let late = try TestMQTTClient(brokerURL: running.broker.url)
        try await late.connect()
        try await late.subscribe(running.topics.commands)
        #expect(try await late.first { $0.topic == running.topics.commands }.retain)
        await late.disconnect()
        // And it still answers commands on the new connection.
        try await running.client.waitUntilConnected(timeout: .seconds(20))
        try await running.client.subscribeAndSettle("medianode/car1/#")
        let reply = try await running.request("bogus", #"{"id":"after-restart"}"#, id: "after-restart")
        #expect(reply["status"] == "commandFailed")
        await fresh.disconnect()
        await running.stop()
    }
}
