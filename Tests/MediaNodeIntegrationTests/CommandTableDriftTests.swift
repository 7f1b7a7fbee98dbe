import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Testing

/// A command's name, fields and starting parameters live in its command-table entry; the lists elsewhere are
/// derived from it, and checked here where a reader other than the node's own code reads them.
@Suite("Every list of commands follows the command table")
struct CommandTableDriftTests {
    /// `medianode docs` writes the channels (CommandDocumentsTests checks they are current); this reads them
    /// back as a YAML reader does (PyYAML), so a quoting or folding slip of the writer cannot pass unseen.
    @Test("asyncapi.yaml's command channels, read by a YAML reader, say what the command table says")
    func asyncApiReadsBack() async throws {
        let run = try await AsyncApiTests.checkDocument("--command-requests")
        #expect(run.status == 0, "\(run.output)")
        let documented = try JSONValue(parsing: Array(run.output.utf8))
        for command in CommandTable.commands {
            let channel = documented[command.name]
            #expect(channel?["address"] == .string(CommandChannels.address(command)), "\(command.name)")
            #expect(channel?["description"] == .string(CommandChannels.description(command)), "\(command.name)")
            #expect(channel?["payloads"] == [CommandChannels.payloadSchema(command)], "\(command.name)")
        }
        #expect(documented.objectValue.map { Set($0.keys) } == Set(CommandTable.names), "channels for commands not in the table")
    }

    @Test("the fuzz test's generator sends every command of the table, each declared field among them")
    func fuzzerCoversTheTable() {
        var generator = HostilePayloads(seed: 7, commands: CommandTable.commands)
        var seen: [String: Set<String>] = [:]
        for _ in 0..<20_000 {
            let request = generator.next(playablePath: [0, 1, 0, 0])
            guard let fields = (try? JSONValue(parsing: request.payload))?.objectValue else { continue }
            seen[request.command, default: []].formUnion(fields.keys)
        }
        for command in CommandTable.commands {
            #expect(seen[command.name] != nil, "\(command.name) is never fuzzed")
            let missing = Set(command.fields.map(\.name)).subtracting(seen[command.name] ?? [])
            #expect(missing.isEmpty, "\(command.name): fields never fuzzed: \(missing.sorted())")
        }
    }

    @Test("the command center starts with each entry's initial parameters, and only those")
    func initialParameters() {
        let document = RemoteCommandCenter().capabilitiesDocument
        for command in CommandTable.commands {
            for (key, value) in command.initialParameters {
                #expect(document[command.name]?[key] == value, "\(command.name).\(key)")
            }
        }
        #expect(document["like"]?["isActive"] == false && document["changeRepeatMode"]?["currentRepeatType"] == "off")
    }
}
