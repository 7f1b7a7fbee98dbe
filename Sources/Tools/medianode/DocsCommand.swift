import ArgumentParser
import Foundation
import MediaNode

/// `medianode docs`: writes topics.md's command rows from the command table; `--check` only says whether
/// they are current (exit status 1 when not), as the tests do.
struct DocsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Writes topics.md's command rows from the command table (with --check: fails when they are out of date).")

    @Option(help: "The topics.md to write.")
    var topics = "topics.md"

    @Flag(help: "Change nothing; exit 1 when the rows differ from what the table makes.")
    var check = false

    func run() throws {
        let text = try String(contentsOfFile: topics, encoding: .utf8)
        let updated = try CommandDocuments.updatingTopics(text)
        guard updated != text else {
            print("\(topics): the command rows are current")
            return
        }
        if check {
            print("\(topics): the command rows differ from the command table; run `medianode docs`")
            throw ExitCode(1)
        }
        try updated.write(toFile: topics, atomically: true, encoding: .utf8)
        print("\(topics): the command rows are written from the command table")
    }
}
