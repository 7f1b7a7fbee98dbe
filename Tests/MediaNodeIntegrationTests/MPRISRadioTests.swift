import Foundation
import MPRIS
import MediaJSON
import MediaNodeTesting
import Testing

/// A radio station's new song on MPRIS: the ICY title the node puts in now playing reaches D-Bus clients as
/// the same change, within 0.2 s of the MQTT message.
@Suite("MPRIS and a radio's songs", .ownThreads)
struct MPRISRadioTests {
    @Test("a radio's new song title is PropertiesChanged of Metadata within 0.2 s of now playing on MQTT")
    func newSongTitle() async throws {
        let daemon = try await DBusDaemon()
        defer { daemon.stop() }
        let server = try await RadioStreamServer()
        defer { server.stop() }
        await server.setStreamTitle("First Band - First Song")
        let stations = try await CatalogFileRig.start([
            .init(id: "talk", title: "Talk FM", live: true, uri: server.url("/talk.mp3"), fields: ["album": "Talk FM Live"]),
        ]) { $0.mpris = .address(daemon.address) }
        let node = stations.running
        let monitor = try await DBusMonitor(address: daemon.address, name: MPRISNames.busName(nodeID: "car1"))
        #expect(try await stations.play("talk")["status"] == "success")
        try await node.waitUntil(node.topics.nowPlaying, "the first StreamTitle", timeout: 20) { $0["title"] == "First Song" }
        _ = try await monitor.first { $0.contains("PropertiesChanged") && $0.contains("'xesam:title': <'First Song'>") }
        let tools = DBusTools(address: daemon.address)
        #expect(try await tools.playerctl("-p", "medianode.car1", "metadata", "xesam:artist").output
            .trimmingCharacters(in: .whitespacesAndNewlines) == "First Band")
        #expect(try await tools.property(MPRISNames.busName(nodeID: "car1"), MPRISNames.player, "CanSeek") == "(<false>,)",
                "a live stream cannot seek")

        for song in ["Second Song", "Third Song"] {
            let mark = monitor.count
            let before = await node.client.messages(on: node.topics.nowPlaying).count
            await server.setStreamTitle("Band - \(song)")
            let signal = try await monitor.first(after: mark, timeout: .seconds(20)) {
                $0.contains("PropertiesChanged") && $0.contains("'xesam:title': <'\(song)'>")
            }
            let onMQTT = try await node.client.first(timeout: .seconds(5)) { [topic = node.topics.nowPlaying] message in
                message.topic == topic && (try? JSONValue(parsing: message.payload))?["title"] == .string(song)
            }
            #expect(await node.client.messages(on: node.topics.nowPlaying).count > before)
            let gap = signal.arrivedAt - onMQTT.receivedAt
            #expect(gap < .milliseconds(200), "\(song): PropertiesChanged \(gap) after now playing on MQTT")
            _ = try await monitor.first(after: mark) { $0.contains("TrackMetadataChanged") && $0.contains(song) }
        }
        monitor.stop()
        await stations.stop()
    }
}
