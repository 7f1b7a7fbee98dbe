import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

extension RealEngineCommandTests.DashboardTests {
    @Test("the node view lists every command the node lists on P/commands and sends any of them; the sleep timer shows in now playing")
    func commandList() async throws {
        let library = try await ToneLibrary("dashboard-commands", tones: [(440, 60)])
        defer { library.remove() }
        let broker = try await MosquittoBroker(webPage: .brokerDirectory)
        defer { broker.stop() }
        let page = try #require(broker.webPageDirectory)
        try await DashboardBrowser.install(into: page)
        let pageURL = try #require(broker.webPageURL)
        var started = try await RunningNode.start(broker: broker, nodeID: "cmds", libraries: [library.library.path],
                                                  sink: "wav:" + library.wav.path)
        started.wavURL = library.wav
        let node = started
        let browser = try await DashboardBrowser()
        defer { browser.quit() }
        _ = try await browser.open(pageURL + "#node=medianode%2Fcmds", nodes: 1)

        // The list is P/commands' own: every command of the table, none the page made up, disabled ones marked.
        let listed = try await eventually({ try await browser.text("#command-name") }, until: { $0.contains("setSleepTimer") })
        let names = listed.split(separator: "\n").map { $0.replacingOccurrences(of: " (disabled)", with: "") }
        #expect(names == CommandTable.names.sorted(), "\(listed)")
        #expect(listed.contains("skipToChapter (disabled)"), "a tone has no chapters: \(listed)")

        // setSleepTimer sent from the list reaches the node as typed, and now playing shows the timer.
        try await node.waitForState("paused")
        #expect(try await node.status("play") == "success")
        try await browser.choose("setSleepTimer", in: "#command-name")
        try await browser.type(#"{"minutes": 30}"#, into: "#command-payload")
        let topic = node.topics.command("setSleepTimer")
        try await browser.click("#command-send")
        let sent = try await node.client.first { $0.topic == topic }
        #expect(try JSONValue(parsing: sent.payload)["minutes"] == 30)
        #expect(try await eventually({ try await browser.text("#np-sleep") }, until: { !$0.isEmpty })
            .hasPrefix("Sleep timer: pauses at "))
        #expect(try await eventually({ try await browser.text("#message") }, until: { $0.contains("setSleepTimer") })
            == "setSleepTimer: success")

        // A payload that is not JSON never leaves the page; the node's own refusal is shown as it says it.
        try await browser.type("{minutes: 5", into: "#command-payload")
        try await browser.click("#command-send")
        #expect(try await eventually({ try await browser.text("#message") }, until: { $0.contains("not JSON") })
            .hasPrefix("setSleepTimer: the payload is not JSON"))
        try await browser.type(#"{"minutes": 0}"#, into: "#command-payload")
        try await browser.click("#command-send")
        #expect(try await eventually({ try await browser.text("#message") }, until: { $0.contains("commandFailed") })
            .contains("'minutes' must be more than 0"))

        try await browser.type(#"{"cancel": true}"#, into: "#command-payload")
        try await browser.click("#command-send")
        #expect(try await eventually({ try await browser.text("#np-sleep") }, until: { $0.isEmpty }) == "")
        #expect(try await browser.consoleErrors().isEmpty)
        await node.stop()
    }
}
