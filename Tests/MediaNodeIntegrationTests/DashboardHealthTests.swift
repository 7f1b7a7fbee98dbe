import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// The fleet view's health columns, in headless Chromium against a real daemon that publishes
    /// `P/metrics` every second, and nodes whose retained figures the test publishes.
    @Suite("The dashboard's fleet view shows each node's health")
    struct DashboardHealthTests {
        @Test("metrics age, reply p99 and stalls per node; a node silent for three intervals is stale though still online")
        func fleetHealth() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("dashboard-health")
            defer { try? FileManager.default.removeItem(at: directory) }
            let broker = try await MosquittoBroker(webPage: .brokerDirectory)
            defer { broker.stop() }
            let page = try #require(broker.webPageDirectory)
            try await DashboardBrowser.install(into: page)
            let pageURL = try #require(broker.webPageURL)

            let watcher = try await ConnectedClient(broker: broker, subscribing: "medianode/health/#")
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "health", "--audio-sink", "fake", "--metrics-interval", "1",
                "--database", directory.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }
            _ = try await watcher.client.first(timeout: .seconds(30)) { $0.topic == "medianode/health/metrics" }

            // Two more nodes as retained topics: one that reported a second ago, one whose last report is a
            // minute old at a 10 s interval (stale), both still `online`.
            let fakes = try TestMQTTClient(brokerURL: broker.url)
            try await fakes.connect()
            let now = Date()
            for (name, age, p99, stalls) in [("fresh", 1.0, 2.5, 3), ("silent", 60.0, 0.7, 0)] {
                let prefix = "medianode/\(name)"
                try await fakes.publish("\(prefix)/status", "online", retain: true)
                try await fakes.publish("\(prefix)/nowplaying", #"{"state":"stopped"}"#, retain: true)
                try await fakes.publish("\(prefix)/metrics", Self.metrics(at: now.addingTimeInterval(-age), p99: p99, stalls: stalls),
                                        retain: true)
            }
            try await fakes.subscribeAndSettle("medianode/+/metrics")

            let browser = try await DashboardBrowser()
            defer { browser.quit() }
            let (_, prefixes) = try await browser.open(pageURL, nodes: 3)
            #expect(Set(prefixes) == ["medianode/health", "medianode/fresh", "medianode/silent"])
            func cell(_ prefix: String, _ column: Int) async throws -> String {
                try await browser.text("#fleet tbody tr[data-prefix='\(prefix)'] td:nth-child(\(column))")
            }
            #expect(try await eventually({ try await cell("medianode/fresh", 6) }, until: { $0 == "2.5 ms" }) == "2.5 ms")
            #expect(try await cell("medianode/fresh", 7) == "3")
            let stale = try await eventually({ try await cell("medianode/silent", 2) }, until: { $0.contains("stale") })
            #expect(stale.contains("online") && stale.contains("stale"), "status cell: \(stale)")
            let silentAge = try await cell("medianode/silent", 5)
            // A minute at publishing, and the seconds Chromium took to start since.
            let silentSeconds = Int(silentAge.split(separator: " ").first ?? "") ?? 0
            #expect(silentAge.hasSuffix(" s") && (60...89).contains(silentSeconds), "the silent node's metrics age: \(silentAge)")
            let live = try await cell("medianode/health", 2)
            #expect(live == "online", "the real node, reporting every second, is not stale: \(live)")
            let age = try await cell("medianode/health", 5)
            #expect(["0 s", "1 s", "2 s"].contains(age), "the real node's metrics age: \(age)")
            #expect(try await browser.text("#fleet-count") == "3 nodes, 3 online, 1 stale")

            // The real node stops without a word (as a car whose broker lost its will): its `online` stays
            // retained, and within three intervals and a little the page calls it stale.
            node.signal(SIGSTOP)
            defer { node.signal(SIGCONT) }
            let frozen = ContinuousClock.now
            let marked = try await eventually({ try await cell("medianode/health", 2) }, until: { $0.contains("stale") })
            #expect(marked.contains("online") && marked.contains("stale"), "status cell: \(marked)")
            #expect(ContinuousClock.now - frozen < .seconds(6), "stale after \(ContinuousClock.now - frozen)")
            #expect(try await browser.text("#fleet-count") == "3 nodes, 3 online, 2 stale")
            if let keep = ProcessInfo.processInfo.environment["MEDIANODE_DASHBOARD_HEALTH_SCREENSHOT"] {
                try await browser.screenshot(to: URL(fileURLWithPath: keep))
            }
            #expect(try await browser.consoleErrors().isEmpty)
            await fakes.disconnect()
        }

        static func metrics(at date: Date, p99: Double, stalls: Int) -> String {
            var seconds = time_t(date.timeIntervalSince1970)
            var fields = tm()
            gmtime_r(&seconds, &fields)
            let stamp = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", fields.tm_year + 1900, fields.tm_mon + 1,
                               fields.tm_mday, fields.tm_hour, fields.tm_min, fields.tm_sec)
            return """
                {"timestamp":"\(stamp)","uptimeSeconds":600,"intervalSeconds":10,\
                "commands":{"success":5,"commandFailed":0,"noSuchContent":0,"noActionableNowPlayingItem":0,"deviceNotFound":0},\
                "replyMs":{"p50":0.4,"p99":\(p99),"max":9},"playback":{"secondsPlayed":500,"stalls":\(stalls),"errors":0},\
                "broker":{"connects":1,"failovers":0},"catalog":{"playables":10,"bytes":100000},\
                "downloads":{"finished":0,"failed":0,"bytes":0},"rssKiB":50000,"cpuSeconds":3.5}
                """
        }

        /// The first value of `read` that `until` accepts within 10 s, else the last one read.
        func eventually(_ read: () async throws -> String, until done: (String) -> Bool) async throws -> String {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                let value = (try? await read()) ?? ""
                if done(value) || ContinuousClock.now > deadline { return value }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
