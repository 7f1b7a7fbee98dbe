import Foundation
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// The fleet view's mark for a node id two nodes share, from what their `P/metrics` says.
    @Suite("The dashboard's fleet view shows a node id in use twice")
    struct DashboardConflictTests {
        @Test("a node whose P/metrics says clientIdConflict is marked 'id conflict' with the takeovers; the others are not")
        func conflictMarked() async throws {
            let broker = try await MosquittoBroker(webPage: .brokerDirectory)
            defer { broker.stop() }
            let page = try #require(broker.webPageDirectory)
            try await DashboardBrowser.install(into: page)
            let pageURL = try #require(broker.webPageURL)

            let fakes = try TestMQTTClient(brokerURL: broker.url)
            try await fakes.connect()
            for (name, conflict) in [("twin", true), ("solo", false)] {
                let prefix = "medianode/\(name)"
                let figures = DashboardHealthTests.metrics(at: Date(), p99: 1, stalls: 0).replacingOccurrences(
                    of: #""broker":{"connects":1,"failovers":0}"#,
                    with: #""broker":{"connects":\#(conflict ? 7 : 1),"failovers":0,"takeovers":\#(conflict ? 6 : 0),"clientIdConflict":\#(conflict)}"#)
                #expect(figures.contains("clientIdConflict"))
                try await fakes.publish("\(prefix)/status", "online", retain: true)
                try await fakes.publish("\(prefix)/metrics", figures, retain: true)
            }
            try await fakes.subscribeAndSettle("medianode/+/metrics")

            let browser = try await DashboardBrowser()
            defer { browser.quit() }
            _ = try await browser.open(pageURL, nodes: 2)
            let twin = try await DashboardHealthTests().eventually(
                { try await browser.text("#fleet tbody tr[data-prefix='medianode/twin'] td:nth-child(2)") },
                until: { $0.contains("id conflict") })
            #expect(twin.contains("online") && twin.contains("id conflict"), "status cell: \(twin)")
            let title = try await browser.isEnabled("#fleet tbody tr[data-prefix='medianode/twin'] .badge.conflict").title
            #expect(title.contains("6 takeovers"), "\(title)")
            #expect(try await browser.text("#fleet tbody tr[data-prefix='medianode/solo'] td:nth-child(2)") == "online")
            #expect(try await browser.consoleErrors().isEmpty)
            await fakes.disconnect()
        }
    }
}
