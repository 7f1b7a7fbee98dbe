/// The documents written from the command table (`medianode docs`), so a command is described where it is
/// defined and the pages cannot drift from the code: topics.md's command rows, and asyncapi.yaml's command
/// channels, their operations and request messages (see `CommandChannels`); and the dashboard's names of the
/// topic leaves and event types, from `TopicLeaf` and `NodeEvent`. Tests check all three are current.
///
/// Each written part sits between two comments (HTML in topics.md, invisible on the rendered page; YAML in
/// asyncapi.yaml); everything else in both files is written by hand.
public enum CommandDocuments {
    static let start = "<!-- The command rows below are written from the command table by `medianode docs`: edit the entries, not the rows. -->"
    static let end = "<!-- End of the rows written by `medianode docs`. -->"

    /// A document without the comments that enclose a written part.
    public struct MissingMarkers: Error, CustomStringConvertible {
        public let document: String
        public let marker: String
        public var description: String { "\(document) has no \(marker) ... block" }
    }

    /// The table: one row per command, in the table's order; neighbours with the same payload text share a row.
    public static var commandRows: String {
        var rows: [(names: [String], payload: String)] = []
        for command in CommandTable.commands {
            if let last = rows.last, last.payload == command.documentation.payload {
                rows[rows.count - 1].names.append(command.name)
            } else {
                rows.append(([command.name], command.documentation.payload))
            }
        }
        let lines = rows.map { row in "| " + row.names.map { "`\($0)`" }.joined(separator: ", ") + " | " + row.payload + " |" }
        return (["| command | payload fields |", "|---|---|"] + lines).joined(separator: "\n")
    }

    /// `topics` with its command rows written anew from the table.
    public static func updatingTopics(_ topics: String) throws(MissingMarkers) -> String {
        try replacing(in: topics, document: "topics.md", from: start, to: end, with: commandRows)
    }

    /// asyncapi.yaml's three written parts: where each goes (its section) and what it holds.
    static var asyncAPIParts: [(part: String, lines: [String])] {
        [
            ("command channels", CommandChannels.channels.lines(indent: 2)),
            ("command operations", CommandChannels.operations.lines(indent: 2)),
            ("command request messages", CommandChannels.messages.lines(indent: 4)),
        ]
    }

    /// `asyncapi` with its command channels, operations and request messages written anew from the table.
    public static func updatingAsyncAPI(_ asyncapi: String) throws(MissingMarkers) -> String {
        var text = asyncapi
        for (part, lines) in asyncAPIParts {
            let indent = String(repeating: " ", count: lines.first.map { $0.prefix { $0 == " " }.count } ?? 2)
            text = try replacing(
                in: text, document: "asyncapi.yaml",
                from: indent + "# The \(part) below are written from the command table by `medianode docs`: edit the entries, not these lines.",
                to: indent + "# End of the \(part) written by `medianode docs`.",
                with: lines.joined(separator: "\n"))
        }
        return text
    }

    /// The dashboard's names for the topic leaves and event types, as JavaScript constants: one line per
    /// `TopicLeaf` and `NodeEvent` case, named as in Swift.
    public static var dashboardNames: String {
        func constant(_ name: String, _ members: [(String, String)]) -> [String] {
            ["  const \(name) = Object.freeze({"] + members.map { "    \($0): '\($1)'," } + ["  });"]
        }
        return (constant("leaves", TopicLeaf.allCases.map { ("\($0)", $0.rawValue) })
            + constant("eventTypes", NodeEvent.allCases.map { ("\($0)", $0.rawValue) })).joined(separator: "\n")
    }

    /// `script` (deploy/dashboard/dashboard.js) with its topic leaves and event types written anew.
    public static func updatingDashboard(_ script: String) throws(MissingMarkers) -> String {
        try replacing(
            in: script, document: "dashboard.js",
            from: "  // The topic leaves below are written from the node's TopicLeaf and NodeEvent by `medianode docs`: edit those, not these lines.",
            to: "  // End of the topic leaves written by `medianode docs`.", with: dashboardNames)
    }

    private static func replacing(in text: String, document: String, from start: String, to end: String,
                                  with written: String) throws(MissingMarkers) -> String {
        guard let first = text.range(of: start), let last = text.range(of: end, range: first.upperBound..<text.endIndex)
        else { throw MissingMarkers(document: document, marker: start) }
        return String(text[..<first.upperBound]) + "\n" + written + "\n" + String(text[last.lowerBound...])
    }
}
