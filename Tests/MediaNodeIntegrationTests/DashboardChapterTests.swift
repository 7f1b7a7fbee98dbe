import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests.DashboardTests {
    @Test("the node view shows the chapter playing and the book's chapters; a click on one plays from it, heard")
    func chapterList() async throws {
        let library = try await ChapterPlaybackTests.library("dashboard-chapters", format: "ogg")
        defer { library.remove() }
        let broker = try await MosquittoBroker(webPage: .brokerDirectory)
        let page = try #require(broker.webPageDirectory)
        try await DashboardBrowser.install(into: page)
        let pageURL = try #require(broker.webPageURL)
        var started = try await RunningNode.start(broker: broker, nodeID: "chap", libraries: [library.library.path],
                                                  sink: "wav:" + library.wav.path)
        started.wavURL = library.wav
        let node = started
        let commandTopic = node.topics.command("skipToChapter")
        let browser = try await DashboardBrowser()
        defer { browser.quit() }
        _ = try await browser.open(pageURL + "#node=medianode%2Fchap", nodes: 1)

        // The book is prepared paused at its first chapter: the line and the list show it.
        #expect(try await eventually({ try await browser.text("#np-chapter") }, until: { $0.hasPrefix("Chapter 1") })
                == "Chapter 1 of 3 \u{2014} Opening")
        #expect(try await eventually({ try await browser.text("#chapters") }, until: { $0.contains("Landfall") })
                == "1. Opening\n0:00\n2. The Crossing\n0:04\n3. Landfall\n0:08")

        // A click on the third chapter: the node gets skipToChapter 2, plays from 8 s, and the page follows.
        let sent = node.renderedSecondsBySize()
        try await browser.click("#chapters li[data-chapter='2']")
        let command = try await node.client.first { $0.topic == commandTopic }
        #expect(try JSONValue(parsing: command.payload)["chapterNumber"] == 2)
        #expect(try await eventually({ try await browser.text("#np-chapter") }, until: { $0.hasPrefix("Chapter 3") })
                == "Chapter 3 of 3 \u{2014} Landfall")
        #expect(try await eventually({ try await browser.text("#chapters li.current") }, until: { $0.contains("Landfall") })
                .hasPrefix("3. Landfall"))
        try await node.waitForAudio(atLeast: sent + 1)
        #expect(isNear(try node.recentTone(length: 0.3), 880), "chapter 3's tone is not heard")

        // The plain track after it has no chapters: the line is empty and the list hidden.
        #expect(try await node.status("nextTrack") == "success")
        #expect(try await eventually({ try await browser.text("#np-title") }, until: { $0 == "Plain" }) == "Plain")
        #expect(try await browser.text("#np-chapter") == "")
        #expect(try await browser.text("#chapters-card") == "")
        #expect(try await browser.consoleErrors().isEmpty)
        await node.stop()
    }
}
