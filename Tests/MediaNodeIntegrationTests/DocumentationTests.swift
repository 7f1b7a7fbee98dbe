import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import NowPlaying
import Playback
import RemoteCommands
import Testing

/// Integrators build on topics.md and the README, not on the code: what the node accepts and sends must
/// be what those pages say, and a change to one without the other fails here.
@Suite("topics.md and the README describe what the code does")
struct DocumentationTests {
    @Test("the command table of topics.md lists exactly the commands the node accepts")
    func commandTable() throws {
        let section = try MarkdownPage("topics.md").section("## Commands")
        let documented = Set(section.tableRows.flatMap { MarkdownPage.codeSpans(in: $0.first ?? "") })
        #expect(documented == Set(CommandTable.names))
    }

    @Test("the status table of topics.md has every status with its code, and nothing else")
    func statusTable() throws {
        let rows = try MarkdownPage("topics.md").section("## Replies").tableRows
        var documented: [String: Int] = [:]
        for row in rows where row.count >= 2 {
            guard let name = MarkdownPage.codeSpans(in: row[0]).first, let code = Int(row[1]) else { continue }
            documented[name] = code
        }
        let actual = Dictionary(uniqueKeysWithValues: CommandStatus.allCases.map { ($0.rawValue, $0.code) })
        #expect(documented == actual)
    }

    @Test("every parameter of P/commands is described under its capabilities")
    func capabilityParameters() throws {
        let section = try MarkdownPage("topics.md").section("### Capabilities in `P/commands`")
        let described = Set(MarkdownPage.codeSpans(in: section.text))
        // The feedback marks' isActive is set once an item plays; the node sets it through this call.
        let center = RemoteCommandCenter()
        center.setParameter("isActive", .bool(false), for: .like)
        guard case let .object(document) = center.capabilitiesDocument else {
            Issue.record("P/commands is not an object")
            return
        }
        for (command, entry) in document {
            guard case let .object(parameters) = entry else { continue }
            let keys = parameters.keys.filter { $0 != "enabled" }
            for key in keys {
                #expect(described.contains(key), "\(command).\(key) is not described")
            }
            if !keys.isEmpty { #expect(described.contains(command), "\(command) has parameters but is not named") }
        }
    }

    @Test("every key now playing can carry is in the now-playing section of topics.md")
    func nowPlayingKeys() throws {
        let section = try MarkdownPage("topics.md").section("## Now playing")
        let metadata = NowPlayingMetadata(
            title: "t", artist: "a", albumTitle: "b", genre: "g", releaseDate: "2014", composer: "c",
            albumTrackNumber: 1, albumTrackCount: 2, discNumber: 1, discCount: 1, chapterNumber: 0, chapterCount: 3)
        let info = NowPlayingInfo(
            state: .playing, timestamp: 1, elapsedPlaybackTime: 2, playbackRate: 1, playbackDuration: 10,
            metadata: metadata, playbackQueueIndex: 0, playbackQueueCount: 1, identifier: "track:x",
            nowPlayingIdentifiers: ["track:x"], artwork: NowPlayingArtwork(topic: "P/artwork/k", mimeType: "image/jpeg", width: 1, height: 1))
        guard case let .object(document) = info.json, case let .object(artwork)? = document["artwork"] else {
            Issue.record("now playing is not an object with artwork")
            return
        }
        let named = Set(MarkdownPage.codeSpans(in: section.text)).union(MarkdownPage.jsonKeys(in: section.text))
        for key in Set(document.keys).union(artwork.keys) {
            #expect(named.contains(key), "now playing's \(key) is not in topics.md")
        }
    }

    @Test("every topic the node uses is in topics.md")
    func topics() throws {
        let spans = Set(MarkdownPage.codeSpans(in: try MarkdownPage("topics.md").text))
        let layout = TopicLayout(prefix: "P")
        // Commands and pictures are one level below their leaf.
        let topics = TopicLeaf.allCases.filter { $0 != .command && $0 != .artwork }.map(layout.topic)
            + [layout.command("<command>"), layout.artwork("<key>")]
        for topic in topics {
            #expect(spans.contains(topic), "\(topic) is not in topics.md")
        }
        #expect(spans.contains { $0.hasPrefix(layout.contentTree + "/") }, "the deeper tree nodes' topics are not in topics.md")
    }

    @Test("topics.md's events table and asyncapi.yaml's Event schema name exactly the node's event types")
    func eventTypes() throws {
        let rows = try MarkdownPage("topics.md").section("### Events on `P/events`").tableRows
        let documented = Set(rows.compactMap { MarkdownPage.codeSpans(in: $0.first ?? "").first })
        let types = Set(NodeEvent.allCases.map(\.rawValue))
        #expect(documented == types)
        let yaml = try MarkdownPage("asyncapi.yaml").text
        let schema = try #require(yaml.firstMatch(of: /\n    Event:\n([\s\S]*?)\n    [A-Za-z]+:\n/)?.output.1)
        #expect(Set(schema.matches(of: /\n            const: (\w+)/).map { String($0.output.1) }) == types)
    }

    @Test("P/info, as a running node publishes it, has exactly the members its row in topics.md names")
    func infoMembers() async throws {
        let rows = try MarkdownPage("topics.md").section("## What the node publishes").tableRows
        let row = try #require(rows.first { MarkdownPage.codeSpans(in: $0[0]) == ["P/info"] })
        let documented = Set(MarkdownPage.codeSpans(in: row.last ?? ""))
        let running = try await RunningNode.start()
        let info = try JSONValue(parsing: try await running.client.first { $0.topic == running.topics.info }.payload)
        guard case let .object(members) = info else {
            Issue.record("P/info is not an object: \(info.jsonString)")
            return
        }
        #expect(Set(members.keys) == documented)
        await running.stop()
    }

    @Test("the README's flag table lists exactly the flags `medianode run` takes")
    func readmeFlags() async throws {
        let help = try await ToolRun.capture(NodeProcess.binaryPath, ["run", "--help"])
        #expect(help.status == 0, "\(help.output)")
        let accepted = Self.flags(in: help.output).subtracting(["--help"])
        let rows = try MarkdownPage("README.md").section("## Running it").tableRows
        let documented = Set(rows.flatMap { Self.flags(in: $0.first ?? "") })
        #expect(documented == accepted)
    }

    /// The help texts interpolate the constants the node falls back to; the README restates them for readers,
    /// so each default `medianode run --help` names must be in that flag's row.
    @Test("the README's flag table gives each default `medianode run --help` gives")
    func readmeFlagDefaults() async throws {
        let help = try await ToolRun.capture(NodeProcess.binaryPath, ["run", "--help"])
        // An option's text starts on a line indented by two spaces and runs on lines indented further.
        var options: [String] = []
        for line in help.output.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  --") {
                options.append(String(text.dropFirst(2)))
            } else if !options.isEmpty {
                options[options.count - 1] += " " + text
            }
        }
        let rows = try MarkdownPage("README.md").section("## Running it").tableRows
        var checked = 0
        for option in options {
            guard let flag = option.split(separator: " ").first,
                  let value = option.firstMatch(of: /\(default ([^ ),:]+)/)?.output.1 else { continue }
            let row = try #require(rows.first { Self.flags(in: $0.first ?? "").contains("--\(flag)") }, "--\(flag)")
            let words = Set(row.joined(separator: " ").replacing("`", with: "")
                .split { $0 == " " || $0 == "," || $0 == ";" || $0 == "(" || $0 == ")" }.map(String.init))
            #expect(words.contains(String(value)), "--\(flag): --help says default \(value), the README: \(row.last ?? "")")
            checked += 1
        }
        #expect(checked >= 15, "defaults read from --help: \(checked)")
    }

    @Test("the README's layout table names every target of Package.swift, and its diagram draws each")
    func readmeLayout() throws {
        let manifest = try MarkdownPage("Package.swift").text
        let targets = Set(manifest.matches(of: /\.(?:target|systemLibrary|executableTarget|testTarget)\(\s*name: "([^"]+)"/)
            .map { String($0.output.1) })
        #expect(targets.count > 10, "targets read from Package.swift: \(targets)")
        let layout = try MarkdownPage("README.md").section("## Layout")
        let tabled = Set(layout.tableRows.flatMap { MarkdownPage.codeSpans(in: $0.first ?? "") })
        #expect(targets.subtracting(tabled).isEmpty, "not in the layout table: \(targets.subtracting(tabled).sorted())")
        #expect(tabled.subtracting(targets).isEmpty, "no such target: \(tabled.subtracting(targets).sorted())")
        let diagram = try #require(layout.text.firstMatch(of: /```text\n([\s\S]*?)```/)?.output.1, "no diagram")
        let drawn = Set(diagram.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
        let products = targets.filter { !$0.hasSuffix("Tests") && !$0.hasSuffix("-child") }
        #expect(products.subtracting(drawn).isEmpty, "not in the diagram: \(products.subtracting(drawn).sorted())")
    }

    @Test("the README's diagram draws each target in the folder of Sources that holds it, as `ls Sources` shows them")
    func readmeLayoutFolders() throws {
        let manifest = try MarkdownPage("Package.swift").text
        let folders = Dictionary(uniqueKeysWithValues: manifest.matches(of: /path: "Sources\/([^"\/]+)\/([^"\/]+)"/)
            .map { (String($0.output.2), String($0.output.1)) })
        #expect(folders.count > 10, "targets with a folder in Sources: \(folders)")
        let layout = try MarkdownPage("README.md").section("## Layout")
        let listing = try #require(layout.text.firstMatch(of: /\$ ls Sources\n([^\n]*)\n/)?.output.1, "no `ls Sources`")
        #expect(Set(listing.split(separator: " ").map(String.init)) == Set(folders.values), "`ls Sources`: \(listing)")
        let diagram = try #require(layout.text.firstMatch(of: /```text\n([\s\S]*?)```/)?.output.1, "no diagram")
        // A line that starts with `Folder/` opens that folder; the names left of a line's arrow are drawn in it.
        var drawnIn: [String: String] = [:]
        var folder = ""
        for line in diagram.split(separator: "\n") {
            if let opening = line.firstMatch(of: /^([A-Za-z]+)\//) { folder = String(opening.output.1) }
            let left = line.replacing(/^[A-Za-z]+\//, with: "").split(separator: "-->").first ?? ""
            for name in left.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }) {
                drawnIn[String(name)] = folder
            }
        }
        for (target, folder) in folders.sorted(by: { $0.key < $1.key }) {
            #expect(drawnIn[target] == folder, "\(target) is in Sources/\(folder), drawn in \(drawnIn[target] ?? "no folder")")
        }
    }

    static func flags(in text: String) -> Set<String> {
        Set(text.matches(of: /--[a-z][a-z-]*/).map { String($0.output) })
    }
}

/// A Markdown file of the package, read as a user reads it: headings, tables and `code` spans.
struct MarkdownPage {
    let text: String

    init(_ name: String) throws {
        // This file is Tests/MediaNodeIntegrationTests/DocumentationTests.swift in the package.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    private init(text: String) { self.text = text }

    /// From the line `heading` to the next heading of the same level or above.
    func section(_ heading: String) throws -> MarkdownPage {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == heading }) else {
            throw RigSetupError("no heading \(heading)")
        }
        let level = heading.prefix { $0 == "#" }.count
        let end = lines[(start + 1)...].firstIndex { line in
            let hashes = line.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.dropFirst(hashes).first == " "
        } ?? lines.endIndex
        return MarkdownPage(text: lines[start..<end].joined(separator: "\n"))
    }

    /// The cells of each table row, header and separator rows left out.
    var tableRows: [[String]] {
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("|") }
        return rows.dropFirst().compactMap { row in
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return cells.allSatisfy { $0.allSatisfy { "-: ".contains($0) } } ? nil : cells
        }
    }

    /// The inline `code` spans, outside fenced blocks.
    static func codeSpans(in text: String) -> [String] {
        text.replacing(/```[\s\S]*?```/, with: "").matches(of: /`([^`\n]+)`/).map { String($0.output.1) }
    }

    /// The member names of the JSON examples.
    static func jsonKeys(in text: String) -> [String] {
        text.matches(of: /"([A-Za-z]+)":/).map { String($0.output.1) }
    }
}
