import ArgumentParser
import Foundation
import MediaJSON

/// The `--config` file: a JSON object whose keys are the run command's long flag names, e.g.
/// `{"broker": "mqtt://...", "auto-download": 2}`; a repeatable flag takes a string or an array
/// (`{"broker": ["mqtt://a", "mqtt://b"]}`), `true` stands for a flag given alone, `false` for one left out.
///
/// The file becomes arguments for the same parser the command line goes through, placed before the
/// command line's own, so every flag works in the file with the same checks, and a flag given on the
/// command line replaces the file's value (a repeatable one, its whole list).
enum ConfigFile {
    /// The command line with the arguments of the `--config` file it names put in, or as it is.
    static func applying(to arguments: [String]) throws(ValidationError) -> [String] {
        guard arguments.first != CatalogCommand._commandName, let path = configPath(in: arguments) else {
            return arguments
        }
        let given = Set(arguments.compactMap(longName))
        let fromFile = try self.arguments(path: path).filter { !given.contains($0.name) }.flatMap(\.arguments)
        let runAt = arguments.first == Run._commandName ? 1 : 0
        return Array(arguments[..<runAt]) + fromFile + Array(arguments[runAt...])
    }

    /// One key of the file as arguments.
    struct Entry {
        var name: String
        var arguments: [String]
    }

    /// The file's keys as arguments, each checked by the run command's parser on its own, so an error
    /// names the key it is about.
    static func arguments(path: String) throws(ValidationError) -> [Entry] {
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
        // A file that holds the broker password must be the owner's alone, as the password file must.
        if let brokers = values["broker"], (arguments(brokers) ?? []).contains(where: { $0.map(BrokerPassword.holdsPassword) == true }) {
            try BrokerPassword.checkPrivate(path, what: "config file")
        }
        var entries: [Entry] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard key != "config" else { throw ValidationError("config file \(path): a config file cannot name another") }
            guard let texts = arguments(value) else {
                throw ValidationError("config file \(path): key '\(key)' takes a string, a number, true or false, or an array of strings or numbers")
            }
            let entry = Entry(
                name: key,
                arguments: Run.expandingHomeAssistantFlag(texts.map { text in text.map { "--\(key)=\($0)" } ?? "--\(key)" }))
            do {
                _ = try Run.parse(entry.arguments)
            } catch {
                let message = Run.message(for: error)
                if message.hasPrefix("Unknown option") { throw ValidationError("config file \(path): unknown key '\(key)'") }
                throw ValidationError("config file \(path): key '\(key)': \(message)")
            }
            entries.append(entry)
        }
        return entries
    }

    /// The value as flag arguments: each element one occurrence, nil for a flag that stands alone.
    private static func arguments(_ value: JSONValue) -> [String?]? {
        switch value {
        case let .string(text): return [text]
        case let .number(number): return [number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)]
        case let .bool(isSet): return isSet ? [nil] : []
        case let .array(elements):
            var texts: [String?] = []
            for element in elements {
                switch element {
                case .string, .number: texts += arguments(element) ?? []
                default: return nil
                }
            }
            return texts
        default: return nil
        }
    }

    /// The path after `--config` (or in `--config=PATH`).
    private static func configPath(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--config" { return index + 1 < arguments.count ? arguments[index + 1] : nil }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
        }
        return nil
    }

    /// `broker` for `--broker` or `--broker=URL`.
    private static func longName(_ argument: String) -> String? {
        guard argument.hasPrefix("--"), argument.count > 2 else { return nil }
        return String(argument.dropFirst(2).prefix { $0 != "=" })
    }
}
