import Foundation
import MediaNodeTesting
import Testing

/// The broker password kept off the command line, where every user of the machine reads it.
extension BrokerSecurityTests {
    /// What the running process shows every local user of its arguments.
    static func commandLine(of node: NodeProcess) -> String {
        let bytes = FileManager.default.contents(atPath: "/proc/\(node.process.processIdentifier)/cmdline") ?? Data()
        return String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// A node that should refuse to start but does not (as before the check) is killed after 20 s, so the
    /// test fails instead of waiting for it.
    static let refusalLimit = ["-s", "KILL", "20"]

    /// A file holding `text` with the permissions `mode`.
    func file(_ name: String, _ text: String, mode: Int) throws -> String {
        let path = scratchPath(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test("--broker-password-file: the node logs in over TLS with a user in the URL and the password from a private file; the running daemon's /proc/PID/cmdline does not hold it")
    func passwordFromFile() async throws {
        let passwordFile = try file("broker-password", "car1-secret\n", mode: 0o600)
        let node = try NodeProcess(arguments: [
            "--broker", "mqtts://car1@127.0.0.1:\(broker.port)", "--broker-password-file", passwordFile,
            "--ca-file", fixtures.caCertificate.path, "--node-id", "car1", "--audio-sink", "fake",
            "--database", scratchPath("car1-file.sqlite")])
        defer { node.signal(SIGKILL) }
        let dashboard = try await dashboard()
        _ = try await dashboard.first(timeout: .seconds(30)) {
            $0.topic == "medianode/car1/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        let commandLine = Self.commandLine(of: node)
        #expect(commandLine.contains("--broker-password-file"), "not the daemon's command line: \(commandLine)")
        #expect(!commandLine.contains("car1-secret"), "\(commandLine)")
        #expect(!node.log.contains("car1-secret"), "\(node.log)")
        #expect(!node.log.contains("password on the command line"), "\(node.log)")
        await dashboard.disconnect()
    }

    @Test("deploy/medianode.example.json, its password file beside it, brings the node online over TLS with nothing secret on its command line")
    func exampleConfigFile() async throws {
        let passwordFile = try file("broker-password", "car1-secret\n", mode: 0o600)
        let library = scratchPath("usb0")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let broker = "mqtts://car1@127.0.0.1:\(self.broker.port)"
        let config = try file("medianode.json", DeployExamples.text("medianode.example.json", replacing: [
            "mqtts://car1@broker.example.net:8883": broker, "mqtts://car1@broker2.example.net:8883": broker,
            "/etc/medianode/broker-password": passwordFile, "/etc/medianode/ca.crt": fixtures.caCertificate.path,
            #""/media/usb0", "/var/lib/medianode/downloads""#: "\"\(library)\"",
            #""https://podcasts.example.net/feed.xml", "https://radio.example.net/stations.m3u""#: "",
            "/var/lib/medianode/catalog.sqlite": scratchPath("example.sqlite"), #""audio-sink": "auto""#: #""audio-sink": "fake""#,
        ]), mode: 0o644)
        let node = try NodeProcess(arguments: ["--config", config])
        defer { node.signal(SIGKILL) }
        let dashboard = try await dashboard()
        _ = try await dashboard.first(timeout: .seconds(30)) {
            $0.topic == "medianode/car1/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        #expect(Self.commandLine(of: node).hasSuffix("--config \(config) "), "\(Self.commandLine(of: node))")
        await dashboard.disconnect()
    }

    @Test("a private config file may hold the password in its broker URL: the node logs in with no warning and nothing secret on its command line")
    func passwordInPrivateConfig() async throws {
        let config = try file("private.json", #"{"broker": "\#(url("car1"))", "node-id": "car1", "ca-file": "\#(fixtures.caCertificate.path)", "audio-sink": "fake", "database": "\#(scratchPath("private.sqlite"))"}"#, mode: 0o600)
        let node = try NodeProcess(arguments: ["--config", config])
        defer { node.signal(SIGKILL) }
        #expect(await node.waitForLog("connected to mqtts://"), "\(node.log)")
        #expect(!Self.commandLine(of: node).contains("car1-secret"), "\(Self.commandLine(of: node))")
        #expect(!node.log.contains("car1-secret") && !node.log.contains("password on the command line"), "\(node.log)")
    }

    @Test("a password file, or a config file holding the password, that other users can read is refused, naming the file and the fix; a password on the command line works, with a warning")
    func readableSecretsRefused() async throws {
        let passwordFile = try file("open-password", "car1-secret\n", mode: 0o644)
        let withFile = try await ToolRun.capture("timeout", Self.refusalLimit + [NodeProcess.binaryPath,
            "--broker", "mqtts://car1@127.0.0.1:\(broker.port)", "--broker-password-file", passwordFile,
            "--database", scratchPath("refused.sqlite")])
        #expect(withFile.status != 0)
        #expect(withFile.output.contains("--broker-password-file \(passwordFile) holds the broker password and users other than its owner can read")
                    && withFile.output.contains("mode 644") && withFile.output.contains("chmod 600 \(passwordFile)"),
                "\(withFile.output)")
        // The unit's group (audio) holds other users too: readable by the group is refused as well.
        let groupFile = try file("group-password", "car1-secret\n", mode: 0o640)
        let withGroupFile = try await ToolRun.capture("timeout", Self.refusalLimit + [NodeProcess.binaryPath,
            "--broker", "mqtts://car1@127.0.0.1:\(broker.port)", "--broker-password-file", groupFile,
            "--database", scratchPath("refused.sqlite")])
        #expect(withGroupFile.status != 0)
        #expect(withGroupFile.output.contains("\(groupFile) holds the broker password") && withGroupFile.output.contains("mode 640"),
                "\(withGroupFile.output)")
        let config = try file("open.json", #"{"broker": "\#(url("car1"))", "node-id": "car1"}"#, mode: 0o644)
        let withConfig = try await ToolRun.capture("timeout", Self.refusalLimit + [NodeProcess.binaryPath, "--config", config])
        #expect(withConfig.status != 0)
        #expect(withConfig.output.contains("config file \(config) holds the broker password and users other than its owner can read"), "\(withConfig.output)")

        let node = try startNode()
        defer { node.signal(SIGKILL) }
        #expect(await node.waitForLog("connected to mqtts://"), "\(node.log)")
        #expect(node.log.contains("the broker password on the command line can be read by every user"), "\(node.log)")
    }
}
