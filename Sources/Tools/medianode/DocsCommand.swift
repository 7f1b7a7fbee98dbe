import ArgumentParser
import Foundation
import MediaNode

/// `medianode docs`: writes topics.md's command rows and asyncapi.yaml's command channels from the command
/// table, and the dashboard's topic leaves and event types from the node's; `--check` only says whether they
/// are current (exit status 1 when not), as the tests do.
struct DocsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Writes topics.md's command rows and asyncapi.yaml's command channels from the command table, and the dashboard's topic leaves and event types (with --check: fails when they are out of date).")

    @Option(help: "The topics.md to write.")
    var topics = "topics.md"

    @Option(help: "The asyncapi.yaml to write.")
    var asyncapi = "asyncapi.yaml"

    @Option(help: "The dashboard script to write.")
    var dashboard = "deploy/dashboard/dashboard.js"

    @Flag(help: "Change nothing; exit 1 when a document differs from what the table makes.")
    var check = false

    func run() throws {
        let documents: [(path: String, part: String, update: (String) throws -> String)] = [
            (topics, "the command rows", CommandDocuments.updatingTopics),
            (asyncapi, "the command channels", CommandDocuments.updatingAsyncAPI),
            (dashboard, "the topic leaves and event types", CommandDocuments.updatingDashboard),
        ]
        var stale = false
        for (path, part, update) in documents {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let updated = try update(text)
            if updated == text {
                print("\(path): \(part) are current")
            } else if check {
                print("\(path): \(part) differ from what the code makes; run `medianode docs`")
                stale = true
            } else {
                try updated.write(toFile: path, atomically: true, encoding: .utf8)
                print("\(path): \(part) are written anew")
            }
        }
        if stale { throw ExitCode(1) }
    }
}
