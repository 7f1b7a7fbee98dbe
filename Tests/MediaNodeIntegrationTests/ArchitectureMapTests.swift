import Foundation
import Testing

/// docs/architecture.md and docs/requirements.md name types, members, targets and files in `code`; each
/// must exist, so neither can describe code that was renamed or moved.
@Suite("docs/architecture.md and docs/requirements.md name only what exists")
struct ArchitectureMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file under Sources by name, and the names declared in them: types (after `class`,
    /// `struct`, `enum`, `actor`, `protocol`, `typealias`) and members (after `func`, `var`, `let`, `case`).
    static func sources() throws -> (files: Set<String>, types: Set<String>, members: Set<String>) {
        let sources = root.appendingPathComponent("Sources")
        guard let walk = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return ([], [], []) }
        var (files, types, members) = (Set<String>(), Set<String>(), Set<String>())
        let typeWords: Set<Substring> = ["class", "struct", "enum", "actor", "protocol", "typealias"]
        let memberWords: Set<Substring> = ["func", "var", "let", "case"]
        for case let url as URL in walk where url.pathExtension == "swift" {
            files.insert(url.lastPathComponent)
            let text = try String(contentsOf: url, encoding: .utf8)
            let words = text.split { !($0.isLetter || $0.isNumber || $0 == "_") }
            for (word, next) in zip(words, words.dropFirst()) {
                if typeWords.contains(word) { types.insert(String(next)) }
                if memberWords.contains(word) { members.insert(String(next)) }
            }
        }
        return (files, types, members)
    }

    /// The `code` spans of the page.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Apple's MediaPlayer types, which requirements.md names as what the node re-creates.
    static let apples: Set = ["MPRemoteCommandCenter", "MPNowPlayingInfoCenter", "MPPlayableContentManager"]

    @Test("every file, type, member and target the page names exists", arguments: ["docs/architecture.md", "docs/requirements.md"])
    func namesExist(_ path: String) throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let (fileNames, types, members) = try Self.sources()
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let spans = Self.codeSpans(page)
        #expect(spans.count > 50, "\(path) names things in code spans")

        var checked = 0
        for span in Set(spans) {
            if span.hasSuffix(".swift") {
                #expect(fileNames.contains(span), "no file \(span) under Sources")
                checked += 1
                continue
            }
            // Type+Feature is a file's name.
            if span.contains("+"), span.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" }) {
                #expect(fileNames.contains(span + ".swift"), "no file \(span).swift under Sources")
                checked += 1
                continue
            }
            // Types (UpperCamelCase) and Type.member; other spans are topics, payloads and values.
            guard !Self.apples.contains(span) else { continue }
            let parts = span.split(separator: ".").map(String.init)
            guard (1...2).contains(parts.count), let type = parts.first, type.first?.isUppercase == true,
                  parts.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber } }) else { continue }
            #expect(types.contains(type) || package.contains("name: \"\(type)\""), "no type or target \(type)")
            if parts.count == 2 {
                #expect(members.contains(parts[1]) || types.contains(parts[1]), "no member \(span)")
            }
            checked += 1
        }
        #expect(checked > 40, "\(path): checked \(checked) names")
    }

    @Test("the service order in docs/architecture.md is the one Node+Services.swift builds")
    func serviceOrder() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let wiring = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Node/MediaNode/Node+Services.swift"), encoding: .utf8)
        // Each numbered line starts with the service's name in the group: "3. ListeningHistory, `ListeningHistory`: ...".
        let section = page.components(separatedBy: "## The services, in order")[1].components(separatedBy: "\n## ")[0]
        let listed = section.split(separator: "\n").filter { $0.first?.isNumber == true }.compactMap { line in
            line.split(separator: " ").dropFirst().first.map { String($0.dropLast()) }
        }
        #expect(listed.count >= 12, "\(listed)")
        let positions = listed.map { wiring.range(of: "serviceName: \"\($0)\"")?.lowerBound }
        #expect(!positions.contains(nil), "not in Node+Services.swift: \(zip(listed, positions).filter { $0.1 == nil }.map(\.0))")
        let wired = wiring.matches(of: /serviceName: "(\w+)"/).map { String($0.1) }
        #expect(listed == wired, "the page lists \(listed), Node+Services.swift builds \(wired)")
    }
}
