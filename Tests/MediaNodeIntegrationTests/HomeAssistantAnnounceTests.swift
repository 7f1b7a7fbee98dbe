import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MediaJSON
import MediaNodeTesting
import Testing

extension HomeAssistantLiveTests {
    @Test("text.set_value on Home Assistant's Announce entity, through its REST API, makes the node speak the text into its output")
    func announceEntitySpeaks() async throws {
        let broker = try await MosquittoBroker()
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("hastates/#")
        try await client.subscribeAndSettle("\(Self.prefix)/#")
        // No music: what the WAV holds is the announcement alone.
        let wav = scratch.appendingPathComponent("out.wav")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "car1-ha", "--audio-sink", "wav:" + wav.path,
            "--database", scratch.appendingPathComponent("catalog.sqlite").path, "--homeassistant",
        ])
        defer { node.signal(SIGKILL) }
        let commands = try await client.first(timeout: .seconds(30)) { $0.topic == "\(Self.prefix)/commands" }
        let speaks = try JSONValue(parsing: commands.payload)["announce"]?["textToSpeech"]
        try #require(speaks == true, "the node cannot speak (eSpeak NG and gstreamer1.0-espeak: deploy/install-deps.sh)")
        let hass = try HomeAssistantProcess(configDirectory: scratch.appendingPathComponent("hass"), brokerPort: broker.port)
        defer { hass.kill() }

        // The text entity is there and available; it has no value until one is sent.
        let entity = "text.car1_ha_announce"
        let stateTopic = "hastates/text/car1_ha_announce/state"
        do {
            _ = try await client.first(timeout: .seconds(120)) {
                $0.topic == stateTopic && String(decoding: $0.payload, as: UTF8.self) != "unavailable"
            }
        } catch {
            throw RigSetupError("\(entity) never became available; Home Assistant's log:\n\(hass.log.suffix(3000))")
        }

        // The person types the text in Home Assistant: text.set_value, as its frontend calls it.
        let spoken = "Next stop, Harbour Street. Please mind the gap."
        let token = try await hass.accessToken()
        let call = try await hass.callService("text", "set_value", ["entity_id": .string(entity), "value": .string(spoken)],
                                              token: token)
        #expect(call.status == 200, "text.set_value: \(call.status) \(call.body)")

        // The node hears announce with that text, accepts it, plays it to the end.
        let command = try await client.first { $0.topic == "\(Self.prefix)/cmd/announce" }
        #expect(try JSONValue(parsing: command.payload) == ["id": "homeassistant-announce", "text": .string(spoken)],
                "\(String(decoding: command.payload, as: UTF8.self))")
        let reply = try JSONValue(parsing: try await client.first {
            $0.topic == "\(Self.prefix)/result" && (try? JSONValue(parsing: $0.payload))?["command"] == "announce"
        }.payload)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let id = try #require(reply["data"]?["announcementId"]?.stringValue, "\(reply.jsonString)")
        func event(_ type: String) async throws -> JSONValue {
            let message = try await client.first(timeout: .seconds(20)) { message in
                guard message.topic == "\(Self.prefix)/events", let event = try? JSONValue(parsing: message.payload) else { return false }
                return event["type"] == .string(type) && event["announcementId"] == .string(id)
            }
            return try JSONValue(parsing: message.payload)
        }
        _ = try await event("announcementStarted")
        let finished = try await event("announcementFinished")
        #expect(finished["reason"] == "finished", "\(finished.jsonString)")

        // Speech in the output: a second or more of sound, loud in places and quiet between words.
        let output = try WAVFile(contentsOf: wav)
        let windows = output.speechWindows()
        print(String(format: "announce from Home Assistant: %.2f s of output, RMS %.4f, %d of %d windows loud, %d quiet",
                     output.duration, output.rms(from: 0, length: output.duration), windows.loud, windows.count, windows.quiet))
        #expect(output.duration > 1, "\(output.duration) s of output")
        #expect(Double(windows.loud) * 0.05 > 0.8, "\(windows.loud) loud windows of 50 ms in \(output.duration) s")
        #expect(windows.quiet > 0, "no pause anywhere: not speech")

        // Home Assistant shows the text sent as the entity's value.
        _ = try await client.first(timeout: .seconds(20)) {
            $0.topic == stateTopic && String(decoding: $0.payload, as: UTF8.self) == spoken
        }
        await hass.stop()
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }
}

// MARK: - Home Assistant's REST API

extension HomeAssistantProcess {
    /// An access token for the REST API, from onboarding's first user, as Home Assistant's frontend gets it
    /// on a fresh install: the user step answers an authorization code, which `/auth/token` exchanges.
    func accessToken() async throws -> String {
        let clientID = "http://127.0.0.1:\(httpPort)/"
        let user = try await post("/api/onboarding/users", json: [
            "client_id": .string(clientID), "name": "Test", "username": "test", "password": "medianode-test",
            "language": "en",
        ])
        guard user.status == 200, let code = try? JSONValue(parsing: Array(user.body.utf8))["auth_code"]?.stringValue else {
            throw RigSetupError("Home Assistant's onboarding answered \(user.status): \(user.body)")
        }
        let token = try await post("/auth/token", form: ["grant_type": "authorization_code", "code": code, "client_id": clientID])
        guard token.status == 200, let access = try? JSONValue(parsing: Array(token.body.utf8))["access_token"]?.stringValue else {
            throw RigSetupError("Home Assistant's /auth/token answered \(token.status): \(token.body)")
        }
        return access
    }

    /// Calls the service `domain.service`, as an automation or the frontend would.
    func callService(_ domain: String, _ service: String, _ data: JSONValue, token: String) async throws
        -> (status: Int, body: String) {
        try await post("/api/services/\(domain)/\(service)", json: data, token: token)
    }

    private func post(_ path: String, json: JSONValue? = nil, form: [String: String]? = nil, token: String? = nil)
        async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(httpPort)\(path)")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.jsonString.utf8)
        } else if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            request.httpBody = Data(form.map { key, value in
                "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
            }.joined(separator: "&").utf8)
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }
}
