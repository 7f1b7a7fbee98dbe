/// topics.md's command rows, written from the command table (`medianode docs`), so a command is described
/// where it is defined and the page cannot drift from the code: a test checks the page is current.
///
/// The rows sit between two HTML comments, invisible on the rendered page; everything else in topics.md
/// is written by hand.
public enum CommandDocuments {
    static let start = "<!-- The command rows below are written from the command table by `medianode docs`: edit the entries, not the rows. -->"
    static let end = "<!-- End of the rows written by `medianode docs`. -->"

    public struct MissingMarkers: Error, CustomStringConvertible {
        public var description: String { "topics.md has no \(CommandDocuments.start) ... \(CommandDocuments.end) block" }
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
        guard let first = topics.range(of: start), let last = topics.range(of: end, range: first.upperBound..<topics.endIndex)
        else { throw MissingMarkers() }
        return String(topics[..<first.upperBound]) + "\n" + commandRows + "\n" + String(topics[last.lowerBound...])
    }
}
