import Foundation
import MediaNode
import Testing

/// topics.md's command rows and asyncapi.yaml's command channels are written from the command table by
/// `medianode docs`; this checks both files hold what the table writes now, so a changed entry without
/// `medianode docs` fails here.
@Suite("Documents written from the command table")
struct CommandDocumentsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let topics = root.appendingPathComponent("topics.md")
    static let asyncapi = root.appendingPathComponent("asyncapi.yaml")
    static let dashboard = root.appendingPathComponent("deploy/dashboard/dashboard.js")

    @Test("topics.md's command rows are current: `medianode docs` would change nothing")
    func topicsRowsAreCurrent() throws {
        let text = try String(contentsOf: Self.topics, encoding: .utf8)
        #expect(try CommandDocuments.updatingTopics(text) == text, "run `swift run medianode docs` and commit topics.md")
    }

    @Test("asyncapi.yaml's command channels are current: `medianode docs` would change nothing")
    func asyncApiChannelsAreCurrent() throws {
        let text = try String(contentsOf: Self.asyncapi, encoding: .utf8)
        #expect(try CommandDocuments.updatingAsyncAPI(text) == text, "run `swift run medianode docs` and commit asyncapi.yaml")
    }

    @Test("the dashboard's topic leaves and event types are current: `medianode docs` would change nothing")
    func dashboardNamesAreCurrent() throws {
        let text = try String(contentsOf: Self.dashboard, encoding: .utf8)
        #expect(try CommandDocuments.updatingDashboard(text) == text, "run `swift run medianode docs` and commit dashboard.js")
        // The script compares and builds topics and event types only through the written constants (an element
        // id such as $('volume') is not a topic, nor the log's kind 'error' an event type).
        let outside = text.replacing(/const (leaves|eventTypes) = Object.freeze\(\{[^}]*\}\);/, with: "")
        let names = TopicLeaf.allCases.map(\.rawValue) + NodeEvent.allCases.filter { $0 != .error }.map(\.rawValue)
        for name in names {
            for spelling in ["case '\(name)'", "=== '\(name)'", "/\(name)'", "['\(name)'", ", '\(name)']"] {
                #expect(!outside.contains(spelling), "dashboard.js spells \(spelling)")
            }
        }
    }

    @Test("a stale document is caught: a changed channel, a missing one, a missing marker")
    func staleAsyncApiIsCaught() throws {
        let text = try String(contentsOf: Self.asyncapi, encoding: .utf8)
        let changed = text.replacing("{prefix}/cmd/skipForward", with: "{prefix}/cmd/skipAhead")
        #expect(try CommandDocuments.updatingAsyncAPI(changed) != changed)
        let dropped = text.replacing(/\n  cmdPause:\n(    .*\n)+/, with: "\n")
        #expect(dropped != text)
        #expect(try CommandDocuments.updatingAsyncAPI(dropped) == text)
        let unmarked = text.replacing("# End of the command operations", with: "# The end of the command operations")
        #expect(throws: CommandDocuments.MissingMarkers.self) { try CommandDocuments.updatingAsyncAPI(unmarked) }
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
