import Foundation
import MediaNodeTesting
import Testing

/// The `--config` file against the real `medianode` binary: its keys are the run command's own flags.
@Suite("Config file")
struct ConfigFileTests {
    /// Runs `medianode run` with a config file holding `document` and the given flags; a node id no node
    /// may have stops it once the arguments are read, before it connects anywhere.
    func run(_ document: String, _ flags: [String] = ["--node-id", "bad id"]) async throws -> (status: Int32, output: String) {
        let directory = try AudioFixtures.makeTemporaryDirectory("config-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("medianode.json").path
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        return try await ToolRun.capture(NodeProcess.binaryPath, ["run", "--config", path] + flags)
    }

    @Test("every flag `medianode run --help` lists is a key the config file takes")
    func everyFlag() async throws {
        let help = try await ToolRun.capture(NodeProcess.binaryPath, ["run", "--help"])
        let keys = DocumentationTests.flags(in: help.output).subtracting(["--help", "--config"]).map { String($0.dropFirst(2)) }
        #expect(keys.count > 20, "flags read from the help: \(keys)")
        for key in keys.sorted() {
            let result = try await run("{\"\(key)\": 1}")
            #expect(result.status != 0)
            #expect(!result.output.contains("config file"), "\(key): \(result.output)")
        }
    }

    @Test("the downloads flags work in a config file")
    func downloadsKeys() async throws {
        let result = try await run(#"{"auto-download": 2, "downloads-dir": "/tmp/episodes", "downloads-quota": 1000000}"#)
        #expect(result.output.contains("--node-id 'bad id'"), "\(result.output)")
        #expect(!result.output.contains("config file"), "\(result.output)")
        let negative = try await run(#"{"auto-download": -1}"#, [])
        #expect(negative.status != 0)
        #expect(negative.output.contains("--auto-download must be 0 or more"), "\(negative.output)")
    }

    @Test("a value from the file is used, and a flag on the command line replaces it")
    func flagsWin() async throws {
        let fromFile = try await run(#"{"node-id": "car one"}"#, [])
        #expect(fromFile.output.contains("--node-id 'car one'"), "\(fromFile.output)")
        let overridden = try await run(#"{"mqtt-version": "7"}"#, ["--mqtt-version", "5", "--node-id", "bad id"])
        #expect(overridden.output.contains("--node-id 'bad id'"), "\(overridden.output)")
        let notOverridden = try await run(#"{"mqtt-version": "7"}"#)
        #expect(notOverridden.output.contains("'7'"), "\(notOverridden.output)")
        let list = try await run(#"{"broker": ["mqtt://127.0.0.1:1", "ftp://nowhere"]}"#)
        #expect(list.output.contains("ftp://nowhere"), "\(list.output)")
        let replacedList = try await run(#"{"broker": ["mqtt://127.0.0.1:1", "ftp://nowhere"]}"#,
                                   ["--broker", "mqtt://127.0.0.1:2", "--node-id", "bad id"])
        #expect(!replacedList.output.contains("ftp://nowhere"), "\(replacedList.output)")
        #expect(replacedList.output.contains("--node-id 'bad id'"), "\(replacedList.output)")
    }

    @Test("an unknown key, a value of the wrong type and a nested config are refused with the key named")
    func refusals() async throws {
        let unknown = try await run(#"{"auto-downloads": 2}"#)
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("unknown key 'auto-downloads'"), "\(unknown.output)")
        let wrongType = try await run(#"{"content-depth": "deep"}"#)
        #expect(wrongType.output.contains("key 'content-depth'"), "\(wrongType.output)")
        let object = try await run(#"{"library": {"path": "/media"}}"#)
        #expect(object.output.contains("key 'library'"), "\(object.output)")
        let nested = try await run(#"{"config": "/etc/other.json"}"#)
        #expect(nested.output.contains("cannot name another"), "\(nested.output)")
        let notObject = try await run("[1, 2]")
        #expect(notObject.output.contains("must hold a JSON object"), "\(notObject.output)")
    }

    @Test("homeassistant: true in the file is the flag alone, false leaves it out")
    func booleanFlag() async throws {
        let on = try await run(#"{"homeassistant": true}"#)
        #expect(!on.output.contains("config file"), "\(on.output)")
        #expect(on.output.contains("--node-id 'bad id'"), "\(on.output)")
    }
}
