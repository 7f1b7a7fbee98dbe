import Foundation
import Synchronization

/// The browser dashboard (deploy/dashboard) in one headless Chromium session, driven through Debian's
/// chromedriver and python3-selenium by Tests/Fixtures/dashboard_browser.py.
public final class DashboardBrowser: @unchecked Sendable {
    private let child: FixtureServerProcess
    private let quitAsked = Mutex(false)

    /// Starts Chromium (a few seconds); `quit()` ends it, as does releasing the object.
    public init() async throws {
        // Debian's interpreter: selenium is a Debian package, not in another Python's site-packages.
        child = try await FixtureServerProcess(script: Self.scriptPath, python: "/usr/bin/python3")
    }

    deinit { quit() }

    /// What the page did not show in time, in the script's words.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Installs the dashboard as deploy/build-dashboard.sh installs it (MQTT.js bundled by esbuild) into `directory`.
    public static func install(into directory: URL) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/build-dashboard.sh").path
        let (status, output) = try await ToolRun.capture("/bin/bash", [script, directory.path])
        guard status == 0 else { throw Failure(description: "\(script) failed (\(status)): \(output)") }
    }

    /// Installs Tests/Fixtures/dashboard_floor.html as `floor.html` beside an installed dashboard: the least
    /// any page can do for a first render (the same bundle and subscriptions, one bare row per node).
    public static func installFloorPage(into directory: URL) throws {
        let floor = FixtureServerProcess.scriptPath("dashboard_floor.html", environmentKey: "MEDIANODE_DASHBOARD_FLOOR")
        let target = directory.appendingPathComponent("floor.html")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: floor, toPath: target.path)
    }

    /// Loads `url` and waits until the fleet view lists `nodes` nodes; returns the time from the start of
    /// navigation to that moment, as the page measured it, and the node prefixes listed.
    public func open(_ url: String, nodes: Int) async throws -> (firstRender: Duration, prefixes: [String]) {
        let reply = try await run(["op": "open", "url": url, "nodes": nodes])
        let milliseconds = reply["firstRenderMs"] as? Double ?? .nan
        return (.microseconds(Int64((milliseconds * 1000).rounded())), reply["prefixes"] as? [String] ?? [])
    }

    /// Clicks the node's row in the fleet view.
    public func openNode(_ prefix: String) async throws {
        try await run(["op": "openNode", "prefix": prefix])
    }

    /// What the node view shows once it shows `title` in `state` with its artwork loaded.
    public struct NowPlaying: Sendable {
        public var title: String
        public var subtitle: String
        public var state: String
        public var artworkWidth: Int
        public var artworkHeight: Int
        /// The position bar's elapsed time, as text.
        public var elapsed: String
    }

    public func nowPlaying(title: String, state: String) async throws -> NowPlaying {
        let reply = try await run(["op": "nowPlaying", "title": title, "state": state])
        return NowPlaying(
            title: reply["title"] as? String ?? "", subtitle: reply["subtitle"] as? String ?? "",
            state: reply["state"] as? String ?? "", artworkWidth: reply["artworkWidth"] as? Int ?? 0,
            artworkHeight: reply["artworkHeight"] as? Int ?? 0, elapsed: reply["elapsed"] as? String ?? "")
    }

    /// Clicks the element at `selector` once it is enabled and, when given, shows `text`.
    public func click(_ selector: String, showing text: String? = nil) async throws {
        var command: [String: Any] = ["op": "click", "selector": selector]
        if let text { command["text"] = text }
        try await run(command)
    }

    /// Opens the containers titled `titles` in turn from the top of the content tree; returns the titles listed then.
    public func browse(_ titles: [String]) async throws -> [String] {
        try await run(["op": "browse", "titles": titles])["titles"] as? [String] ?? []
    }

    /// One row of the content list shown.
    public struct TreeRow: Sendable, Equatable {
        public var title: String
        /// `open`, `play`, or nil when a click does nothing.
        public var action: String?
        /// The row's label: "open ›", "▶ play", or why it cannot be opened.
        public var kind: String
    }

    public func treeRows() async throws -> [TreeRow] {
        let rows = try await run(["op": "rows"])["rows"] as? [[String: Any]] ?? []
        return rows.map {
            TreeRow(title: $0["title"] as? String ?? "", action: $0["action"] as? String, kind: $0["kind"] as? String ?? "")
        }
    }

    /// Clicks the playable item titled `title` in the list shown.
    public func play(_ title: String) async throws {
        try await run(["op": "play", "title": title])
    }

    public func text(_ selector: String) async throws -> String {
        try await run(["op": "text", "selector": selector])["text"] as? String ?? ""
    }

    /// Empties the field at `selector` and types `text` into it, key by key.
    public func type(_ text: String, into selector: String) async throws {
        try await run(["op": "type", "selector": selector, "text": text])
    }

    /// Chooses the option with `value` in the select at `selector`.
    public func choose(_ value: String, in selector: String) async throws {
        try await run(["op": "choose", "selector": selector, "value": value])
    }

    /// Moves the range input at `selector` to `value`, as a drag does.
    public func slide(_ selector: String, to value: Double) async throws {
        try await run(["op": "slide", "selector": selector, "value": String(value)])
    }

    /// Whether the element at `selector` is enabled, and its tooltip (which says why not, where the page says it).
    public func isEnabled(_ selector: String) async throws -> (enabled: Bool, title: String) {
        let reply = try await run(["op": "enabled", "selector": selector])
        return (reply["enabled"] as? Bool ?? false, reply["title"] as? String ?? "")
    }

    public func screenshot(to file: URL) async throws {
        try await run(["op": "screenshot", "path": file.path])
    }

    /// The page's console errors since the last call.
    public func consoleErrors() async throws -> [String] {
        try await run(["op": "console"])["errors"] as? [String] ?? []
    }

    /// Closes Chromium. The script must do it: killed, it would leave chromedriver and Chromium running. It
    /// does so on a thread of its own, so that a `defer` can call this and the test goes on at once.
    public func quit() {
        guard !quitAsked.withLock({ asked in defer { asked = true }; return asked }) else { return }
        Thread.detachNewThread { [child] in
            child.sendBlocking(["op": "quit"])
            if !child.waitForExitBlocking(seconds: 15) { child.stop() }
        }
    }

    /// Sends one command (awaited on a thread of its own: the script blocks for as long as the page takes).
    @discardableResult
    func run(_ command: [String: Any]) async throws -> [String: Any] {
        let reply = await child.send(command)
        guard reply["ok"] as? Bool == true else {
            throw Failure(description: "\(command["op"] ?? "?"): \(reply["error"] as? String ?? "the browser script ended")")
        }
        return reply
    }

    /// The script beside this package's tests, or `MEDIANODE_DASHBOARD_BROWSER`.
    public static var scriptPath: String {
        FixtureServerProcess.scriptPath("dashboard_browser.py", environmentKey: "MEDIANODE_DASHBOARD_BROWSER")
    }
}
