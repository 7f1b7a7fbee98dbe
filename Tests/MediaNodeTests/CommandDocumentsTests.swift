import Foundation
import MediaNode
import Testing

/// topics.md's command rows are written from the command table by `medianode docs`; this checks the page
/// holds what the table writes now, so a changed entry without `medianode docs` fails here.
@Suite("Documents written from the command table")
struct CommandDocumentsTests {
    static let topics = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("topics.md")

    @Test("topics.md's command rows are current: `medianode docs` would change nothing")
    func topicsRowsAreCurrent() throws {
        let text = try String(contentsOf: Self.topics, encoding: .utf8)
        #expect(try CommandDocuments.updatingTopics(text) == text, "run `swift run medianode docs` and commit topics.md")
    }

    @Test("the rows name every command once, in the table's order, each beside its entry's payload text")
    func rowsFollowTheTable() {
        let rows = CommandDocuments.commandRows.split(separator: "\n").dropFirst(2)
        let named = rows.flatMap { row in
            row.split(separator: "|")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
        }
        #expect(named == CommandTable.names)
        for command in CommandTable.commands {
            #expect(rows.contains { $0.contains("`\(command.name)`") && $0.hasSuffix("| \(command.documentation.payload) |") },
                    "\(command.name)")
        }
    }
}
