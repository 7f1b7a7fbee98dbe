import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests.DashboardTests {
    @Test("the announce box: typed text is spoken and shown started, then finished; a missing file's refusal and a cancel are shown; Speak is off without text-to-speech")
    func announceBox() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("dashboard-announce")
        defer { try? FileManager.default.removeItem(at: directory) }
        let broker = try await MosquittoBroker(webPage: .brokerDirectory)
        let page = try #require(broker.webPageDirectory)
        try await DashboardBrowser.install(into: page)
        let pageURL = try #require(broker.webPageURL)
        // No music: the WAV holds the announcements alone.
        let wav = directory.appendingPathComponent("out.wav")
        var node = try await RunningNode.start(broker: broker, nodeID: "ann", libraries: [], sink: "wav:" + wav.path)
        node.wavURL = wav
        let announceTopic = node.topics.command("announce")
        let speaks = await node.commands?["announce"]?["textToSpeech"]
        try #require(speaks == true, "the node cannot speak (eSpeak NG and gstreamer1.0-espeak: deploy/install-deps.sh)")
        let browser = try await DashboardBrowser()
        defer { browser.quit() }
        _ = try await browser.open(pageURL + "#node=medianode%2Fann", nodes: 1)

        // The person types text and presses Speak: the node gets announce with that text from the page.
        let spoken = "Welcome aboard. The next stop is Harbour Street, change here for the ferry."
        #expect(try await browser.isEnabled("#announce-send").enabled == false, "Speak with nothing typed")
        try await browser.type(spoken, into: "#announce-input")
        try await browser.click("#announce-send", showing: "Speak")
        let command = try await node.client.first { $0.topic == announceTopic }
        let sent = try JSONValue(parsing: command.payload)
        #expect(sent["text"] == .string(spoken) && sent["url"] == nil, "\(sent.jsonString)")
        let reply = try await node.reply(id: try #require(sent["id"]?.stringValue))
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let id = try #require(reply["data"]?["announcementId"]?.stringValue)

        // The node says it started, then finished; the page shows each, under the text it sent.
        let label = "\u{201C}\(spoken.prefix(59))\u{2026}\u{201D}"
        try await node.waitForEvent("announcementStarted") { $0["type"] == "announcementStarted" && $0["announcementId"] == .string(id) }
        let started = try await eventually({ try await browser.text("#announce-state") }, until: { $0.hasSuffix("started") || $0.hasSuffix("finished") })
        #expect(started == "\(label): started", "shown while it plays")
        let finished = try await node.waitForEvent("announcementFinished", timeout: 20) {
            $0["type"] == "announcementFinished" && $0["announcementId"] == .string(id)
        }
        #expect(finished["reason"] == "finished", "\(finished.jsonString)")
        #expect(try await eventually({ try await browser.text("#announce-state") }, until: { $0.hasSuffix("finished") })
                == "\(label): finished")
        #expect(try await browser.text("#announce-input") == "", "the box is emptied once the node took it")
        // What the node played is speech: words and the pauses between them.
        let output = try node.wav()
        let windows = output.speechWindows()
        print(String(format: "dashboard announce: %.2f s of output, %d of %d windows loud, %d quiet",
                     output.duration, windows.loud, windows.count, windows.quiet))
        #expect(Double(windows.loud) * 0.05 > 1.5 && windows.quiet > 0, "\(windows) in \(output.duration) s")

        // A file that does not exist: the button says Announce, the node refuses, the page says why.
        let missing = directory.appendingPathComponent("no such clip.ogg")
        try await browser.type(missing.absoluteString, into: "#announce-input")
        try await browser.click("#announce-send", showing: "Announce")
        let refusedCommand = try await node.client.first {
            $0.topic == announceTopic && (try? JSONValue(parsing: $0.payload))?["url"] != nil
        }
        let refusedID = try #require(try JSONValue(parsing: refusedCommand.payload)["id"]?.stringValue)
        let refusal = try await node.reply(id: refusedID)
        #expect(refusal["status"] == "noSuchContent", "\(refusal.jsonString)")
        let shownRefusal = try await eventually({ try await browser.text("#announce-state") }, until: { $0.contains("refused") })
        #expect(shownRefusal == "\(missing.absoluteString): refused \u{2014} noSuchContent (100): no such file: \(missing.path)",
                "shown: \(shownRefusal)")
        #expect(try await browser.text("#announce-input") == missing.absoluteString, "a refused value stays to be corrected")

        // Cancel while one speaks: the node ends it cancelled, and the page says so.
        try await browser.type(String(repeating: "This announcement is long and will not be heard to its end. ", count: 4),
                               into: "#announce-input")
        try await browser.click("#announce-send", showing: "Speak")
        let long = try await node.waitForEvent("a second announcementStarted") {
            $0["type"] == "announcementStarted" && $0["announcementId"] != .string(id)
        }
        try await browser.click("#announce-cancel")
        let cancelled = try await node.waitForEvent("the long one finished", timeout: 20) {
            $0["type"] == "announcementFinished" && $0["announcementId"] == long["announcementId"]
        }
        #expect(cancelled["reason"] == "cancelled", "\(cancelled.jsonString)")
        let shownCancel = try await eventually({ try await browser.text("#announce-state") }, until: { $0.hasSuffix("cancelled") })
        #expect(shownCancel.hasPrefix("\u{201C}This announcement is long") && shownCancel.hasSuffix(": cancelled"), "shown: \(shownCancel)")

        // A node whose P/commands says it has no text-to-speech: Speak is off for text, with the reason, and
        // a URL can still be announced; with announce disabled, neither button works.
        let silent = try TestMQTTClient(brokerURL: broker.url)
        try await silent.connect()
        try await silent.publish("medianode/silent/status", "online", retain: true)
        try await silent.publish("medianode/silent/commands", #"{"announce":{"enabled":true,"textToSpeech":false,"maxWaiting":10}}"#,
                                 retain: true)
        _ = try await browser.open(pageURL + "#node=medianode%2Fsilent", nodes: 2)
        try await browser.type("Hello", into: "#announce-input")
        // Once the page has read the node's P/commands.
        let noSpeech = try await eventually({ try await browser.isEnabled("#announce-send").title }, until: { !$0.isEmpty })
        #expect(noSpeech == "This node has no text-to-speech: give an audio URL instead")
        #expect(try await browser.isEnabled("#announce-send").enabled == false)
        try await browser.type("https://example.net/chime.ogg", into: "#announce-input")
        #expect(try await browser.isEnabled("#announce-send").enabled)
        #expect(try await browser.text("#announce-send") == "Announce")
        try await silent.publish("medianode/silent/commands", #"{"announce":{"enabled":false,"textToSpeech":false,"maxWaiting":10}}"#,
                                 retain: true)
        let disabled = try await eventually({ try await browser.isEnabled("#announce-cancel").enabled ? "enabled" : "disabled" },
                                            until: { $0 == "disabled" })
        #expect(disabled == "disabled")
        #expect(try await browser.isEnabled("#announce-send").enabled == false)
        #expect(try await browser.consoleErrors().isEmpty)
        await silent.disconnect()
        await node.stop()
    }
}

extension RealEngineCommandTests.DashboardTests {
    @Test("the announce box sends the chosen music mode, volume and language; the fleet header counts one node as one node")
    func announceOptions() async throws {
        let broker = try await MosquittoBroker(webPage: .brokerDirectory)
        let page = try #require(broker.webPageDirectory)
        try await DashboardBrowser.install(into: page)
        let pageURL = try #require(broker.webPageURL)
        let node = try await RunningNode.start(broker: broker, nodeID: "opts", libraries: [], sink: "fake")
        let announceTopic = node.topics.command("announce")
        let browser = try await DashboardBrowser()
        defer { browser.quit() }
        _ = try await browser.open(pageURL, nodes: 1)
        let count = try await eventually({ try await browser.text("#fleet-count") }, until: { $0.contains("online") })
        #expect(count == "1 node, 1 online")

        try await browser.openNode("medianode/opts")
        try await browser.choose("pause", in: "#announce-mode")
        try await browser.click("#announce-volume-set")
        try await browser.slide("#announce-volume", to: 0.4)
        try await browser.type("de", into: "#announce-lang")
        try await browser.type("Nächster Halt", into: "#announce-input")
        try await browser.click("#announce-send", showing: "Speak")
        let sent = try JSONValue(parsing: try await node.client.first { $0.topic == announceTopic }.payload)
        #expect(sent["text"] == "Nächster Halt" && sent["mode"] == "pause" && sent["volume"] == 0.4 && sent["lang"] == "de",
                "\(sent.jsonString)")
        let reply = try await node.reply(id: try #require(sent["id"]?.stringValue))
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        #expect(try await browser.consoleErrors().isEmpty)
        await node.stop()
    }
}
