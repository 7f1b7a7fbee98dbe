import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real command-line D-Bus clients a user drives an MPRIS player with: `playerctl`, and GLib's `gdbus`
/// for what playerctl does not reach (the root interface, the track list, raw errors).
public struct DBusTools: Sendable {
    public let address: String

    public init(address: String) { self.address = address }

    /// `playerctl ARGS` on this bus (playerctl reads the session bus from `DBUS_SESSION_BUS_ADDRESS`).
    public func playerctl(_ arguments: String...) async throws -> (status: Int32, output: String) {
        try await ToolRun.capture("env", ["DBUS_SESSION_BUS_ADDRESS=\(address)", "playerctl"] + arguments)
    }

    /// `gdbus call` of `method` (`interface.Member`) on `destination`'s `path`, with arguments in GVariant text.
    public func call(_ destination: String, path: String, method: String, _ arguments: String...) async throws
        -> (status: Int32, output: String) {
        try await ToolRun.capture(
            "gdbus", ["call", "--address", address, "--dest", destination, "--object-path", path, "--method", method] + arguments)
    }

    /// `Properties.Get` of one property, as gdbus prints it (`(<'Playing'>,)`).
    public func property(_ destination: String, _ interface: String, _ name: String) async throws -> String {
        try await call(destination, path: "/org/mpris/MediaPlayer2", method: "org.freedesktop.DBus.Properties.Get",
                       interface, name).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `gdbus introspect` of `path`.
    public func introspect(_ destination: String, path: String) async throws -> String {
        try await ToolRun.capture("gdbus", ["introspect", "--address", address, "--dest", destination, "--object-path", path]).output
    }
}

/// `gdbus monitor` on one bus name: every signal its owner sends, as the lines gdbus prints, each with
/// the moment it arrived here. Line-buffered (`stdbuf -oL`), so a signal is read as soon as gdbus has it.
public final class DBusMonitor: @unchecked Sendable {
    public struct Line: Sendable {
        public let text: String
        public let arrivedAt: ContinuousClock.Instant
    }

    private let process = Process()
    private let lock = NSLock()
    private var received: [Line] = []
    private var partial = Data()

    /// Starts `gdbus monitor --address ADDRESS --dest NAME` and returns once it watches the name.
    public init(address: String, name: String) async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", "gdbus", "monitor", "--address", address, "--dest", name]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            let now = ContinuousClock.now
            guard let self, !data.isEmpty else { return }
            self.lock.withLock {
                self.partial.append(data)
                while let newline = self.partial.firstIndex(of: 0x0A) {
                    let line = String(decoding: self.partial[self.partial.startIndex..<newline], as: UTF8.self)
                    self.partial.removeSubrange(self.partial.startIndex...newline)
                    self.received.append(Line(text: line, arrivedAt: now))
                }
            }
        }
        try process.run()
        // gdbus prints "Monitoring signals" before its match rule reaches the bus, and "The name … is owned by"
        // (or "… does not have an owner") once the bus has answered a call sent after that rule: from then on
        // no signal is missed. Waiting for the first line alone lost a signal sent right after it, under load.
        _ = try await first(timeout: .seconds(10)) { $0.hasPrefix("The name ") }
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    public var lines: [Line] { lock.withLock { received } }

    /// How many lines have arrived: `first(after:)` looks only at the ones after such a mark.
    public var count: Int { lock.withLock { received.count } }

    /// The first line after the first `after` lines that `matches`, waiting up to `timeout` for it.
    public func first(after: Int = 0, timeout: Duration = .seconds(10), _ matches: (String) -> Bool) async throws -> Line {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = lock.withLock({ received.dropFirst(after).first { matches($0.text) } }) { return line }
            guard ContinuousClock.now < deadline else {
                throw MonitorTimeout(description: "no matching signal within \(timeout); gdbus printed:\n"
                    + lines.map(\.text).joined(separator: "\n"))
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    public func stop() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    public struct MonitorTimeout: Error, CustomStringConvertible {
        public let description: String
    }
}
