import Logging
import Synchronization

/// Keeps every line a logger writes, so a test can check what the node told its operator.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger writing into this recorder (every level, trace included).
    public func logger(label: String = "medianode") -> Logger {
        Logger(label: label) { label in Handler(recorder: self, label: label) }
    }

    /// Every line so far: `<level> <label>: <message> <metadata>`.
    public var messages: [String] { lines.withLock { $0 } }

    /// The lines containing every one of `fragments`.
    public func lines(containing fragments: String...) -> [String] {
        messages.filter { line in fragments.allSatisfy { line.contains($0) } }
    }

    /// Waits until a line containing every one of `fragments` is written; returns it, or nil after `timeout`.
    public func waitForLine(containing fragments: String..., timeout: Duration = .seconds(10)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = messages.first(where: { line in fragments.allSatisfy { line.contains($0) } }) { return line }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        let label: String
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let suffix = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
            recorder.append("\(event.level) \(label): \(event.message)\(suffix)")
        }
    }
}
