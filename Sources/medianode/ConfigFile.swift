import ArgumentParser
import Foundation
import RemoteCommands
import MediaJSON

/// The `--config` file: a JSON object whose keys are the long flag names, e.g. `{"broker": "mqtt://..."}`;
/// a repeatable flag takes a string or an array (`{"broker": ["mqtt://a", "mqtt://b"]}`).
struct ConfigFile {
    var values: [String: JSONValue] = [:]

    init() {}

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read the config file \(path)")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: [UInt8](data))
        } catch {
            throw ValidationError("config file \(path): \(error)")
        }
        guard case let .object(values) = document else {
            throw ValidationError("config file \(path) must hold a JSON object")
        }
        let known: Set<String> = [
            "broker", "prefix", "node-id", "library", "catalog", "database", "audio-sink", "mqtt-version",
            "max-payload", "artwork-size", "ca-file", "cert-file", "key-file", "log-level", "catalog-refresh",
            "library-rescan", "content-depth", "content-page-size", "progress-interval", "failback-interval",
            "homeassistant",
        ]
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw ValidationError("config file \(path): unknown key '\(unknown)'")
        }
        self.values = values
    }

    func string(_ key: String) -> String? { values[key]?.stringValue }

    func int(_ key: String) -> Int? { values[key]?.numberValue.map { Int($0) } }

    func double(_ key: String) -> Double? { values[key]?.numberValue }

    /// A string or an array of strings.
    func strings(_ key: String) -> [String] {
        switch values[key] {
        case let .string(text)?: [text]
        case let .array(elements)?: elements.compactMap(\.stringValue)
        default: []
        }
    }
}
