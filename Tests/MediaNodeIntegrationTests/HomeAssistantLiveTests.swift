import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// A real Home Assistant 2025.4 (deploy/install-homeassistant.sh) with its MQTT integration on the test broker,
/// beside the real daemon: what a Home Assistant user sees and does. Home Assistant's own `mqtt_statestream`
/// publishes every entity state it holds on `hastates/...`, and an automation presses the button an MQTT
/// message names, so the test reads and drives Home Assistant over the same broker.
@Suite("Home Assistant, running, shows and drives the node")
final class HomeAssistantLiveTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("hass")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    static let prefix = "medianode/car1-ha"

    @Test("Home Assistant lists the node's 16 entities (15 on a node that cannot speak), shows what plays, and its pause button pauses the node")
    func entitiesShowAndDrive() async throws {
        let library = scratch.appendingPathComponent("music")
        try await AudioFixtures.writeTone(
            ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 30, title: "Harbour Lights", artist: "The Testers",
                      album: "Seaside"), in: library)
        try await AudioFixtures.writeCover(named: "cover.jpg", width: 300, height: 300, in: library)
        let broker = try await MosquittoBroker()
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("hastates/#")
        try await client.subscribeAndSettle("\(Self.prefix)/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "car1-ha", "--audio-sink", "fake", "--library", library.path,
            "--database", scratch.appendingPathComponent("catalog.sqlite").path, "--homeassistant",
        ])
        let hass = try HomeAssistantProcess(configDirectory: scratch.appendingPathComponent("hass"), brokerPort: broker.port)
        defer { hass.kill() }

        func state(_ entity: String, _ expected: @escaping @Sendable (String) -> Bool, timeout: Duration = .seconds(20))
            async throws -> String {
            let topic = "hastates/\(entity.replacingOccurrences(of: ".", with: "/"))/state"
            do {
                let message = try await client.first(timeout: timeout) {
                    $0.topic == topic && expected(String(decoding: $0.payload, as: UTF8.self))
                }
                return String(decoding: message.payload, as: UTF8.self)
            } catch {
                let last = await client.latest(on: topic).map { String(decoding: $0.payload, as: UTF8.self) } ?? "nothing"
                throw RigSetupError("\(entity): last state \(last); Home Assistant's log:\n\(hass.log.suffix(3000))")
            }
        }
        let commands = try await client.first(timeout: .seconds(30)) { $0.topic == "\(Self.prefix)/commands" }
        let speaks = try JSONValue(parsing: commands.payload)["announce"]?["textToSpeech"] == true
        // Home Assistant takes some 20-40 s to start on a loaded machine.
        #expect(try await state("sensor.car1_ha_state", { $0 == "stopped" }, timeout: .seconds(120)) == "stopped")
        let entities = [
            "sensor.car1_ha_state", "sensor.car1_ha_title", "sensor.car1_ha_artist", "sensor.car1_ha_album",
            "sensor.car1_ha_chapter", "image.car1_ha_artwork", "button.car1_ha_play", "button.car1_ha_pause", "button.car1_ha_next",
            "button.car1_ha_previous", "button.car1_ha_stop", "select.car1_ha_repeat", "select.car1_ha_shuffle",
            "number.car1_ha_volume", "switch.car1_ha_mute",
        ] + (speaks ? ["text.car1_ha_announce"] : [])
        for entity in entities {
            // Available: the node's status says online (volume and mute stay unknown until a node has P/volume).
            _ = try await state(entity, { $0 != "unavailable" })
        }
        #expect(try await state("select.car1_ha_repeat", { $0 == "off" }) == "off")

        // Play from the tree; Home Assistant shows the title, artist, album and picture.
        var status = ""
        for attempt in 0..<40 where status != "success" {
            try await client.publish("\(Self.prefix)/cmd/playItem", #"{"indexPath":[0,1,0,0],"id":"p\#(attempt)"}"#)
            let reply = try await client.first {
                $0.topic == "\(Self.prefix)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string("p\(attempt)")
            }
            status = try JSONValue(parsing: reply.payload)["status"]?.stringValue ?? ""
            if status != "success" { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(status == "success")
        _ = try await state("sensor.car1_ha_state", { $0 == "playing" })
        _ = try await state("sensor.car1_ha_title", { $0 == "Harbour Lights" })
        _ = try await state("sensor.car1_ha_artist", { $0 == "The Testers" })
        _ = try await state("sensor.car1_ha_album", { $0 == "Seaside" })
        // An image entity's state is the time its picture last changed.
        _ = try await state("image.car1_ha_artwork", { $0.hasPrefix("20") })

        // The person presses Pause in Home Assistant: the node pauses, and Home Assistant shows it.
        try await client.publish("hatest/press", "button.car1_ha_pause")
        _ = try await client.first(timeout: .seconds(20)) {
            $0.topic == "\(Self.prefix)/nowplaying" && (try? JSONValue(parsing: $0.payload))?["state"] == "paused"
        }
        _ = try await state("sensor.car1_ha_state", { $0 == "paused" })
        // The reply follows the state it changed, so it may come a moment after now playing.
        let pauseMessage = try? await client.first(timeout: .seconds(5)) {
            $0.topic == "\(Self.prefix)/result" && (try? JSONValue(parsing: $0.payload))?["command"] == "pause"
        }
        let pauseReply = pauseMessage.flatMap { try? JSONValue(parsing: $0.payload) }
        #expect(pauseReply?["status"] == "success", "\(pauseReply?.jsonString ?? "no reply to pause")")

        await hass.stop()
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }
}

/// Home Assistant run as a process on a fresh configuration: its MQTT integration on the given broker,
/// `mqtt_statestream` publishing every state on `hastates/`, and an automation that presses the button
/// whose entity id arrives on `hatest/press`.
final class HomeAssistantProcess: @unchecked Sendable {
    let process = Process()
    let configDirectory: URL
    /// Where its HTTP server (the REST API) listens, on 127.0.0.1.
    let httpPort: Int

    init(configDirectory: URL, brokerPort: Int) throws {
        self.configDirectory = configDirectory
        let storage = configDirectory.appendingPathComponent(".storage")
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        let httpPort = try MosquittoBroker.freePort()
        self.httpPort = httpPort
        try """
        homeassistant:
          name: MediaNode test
          time_zone: UTC
          latitude: 0
          longitude: 0
          elevation: 0
          unit_system: metric
        http:
          server_host: 127.0.0.1
          server_port: \(httpPort)
        logger:
          default: warning
        mqtt_statestream:
          base_topic: hastates
        automation:
          - triggers:
              - trigger: mqtt
                topic: hatest/press
            actions:
              - action: button.press
                target:
                  entity_id: "{{ trigger.payload }}"

        """.write(to: configDirectory.appendingPathComponent("configuration.yaml"), atomically: true, encoding: .utf8)
        // The MQTT integration is set up from the user interface, which stores this config entry.
        let entry: JSONValue = [
            "version": 1, "minor_version": 1, "key": "core.config_entries",
            "data": ["entries": [[
                "entry_id": "01MEDIANODETESTBROKER0000", "version": 1, "minor_version": 1, "domain": "mqtt",
                "title": "test broker", "data": ["broker": "127.0.0.1", "port": .number(Double(brokerPort))],
                "options": [:], "source": "user", "unique_id": nil, "disabled_by": nil,
                "pref_disable_new_entities": false, "pref_disable_polling": false,
            ]]],
        ]
        try entry.jsonString.write(to: storage.appendingPathComponent("core.config_entries"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: HomeAssistantCheck.python)
        process.arguments = [
            URL(fileURLWithPath: HomeAssistantCheck.python).deletingLastPathComponent().appendingPathComponent("hass").path,
            "-c", configDirectory.path, "--skip-pip", "--ignore-os-check", "--log-file",
            configDirectory.appendingPathComponent("home-assistant.log").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard FileManager.default.isExecutableFile(atPath: HomeAssistantCheck.python) else {
            throw RigSetupError("Home Assistant is not installed at \(HomeAssistantCheck.python): run deploy/install-homeassistant.sh")
        }
        try process.run()
    }

    var log: String {
        (try? String(contentsOf: configDirectory.appendingPathComponent("home-assistant.log"), encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then SIGKILL if it has not stopped within 20 s.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        await process.exited()
    }

    /// SIGKILL without waiting, for a `defer` on a failed test (a passing one has stopped it already).
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }
}
