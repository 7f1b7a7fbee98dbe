import Foundation

/// A throwaway certificate authority, a broker certificate it signed (for 127.0.0.1 and localhost) and a
/// mosquitto password file, made with the real openssl and mosquitto_passwd tools in `directory`.
public struct BrokerSecurityFixtures: Sendable {
    public let directory: URL
    public var caCertificate: URL { directory.appendingPathComponent("ca.crt") }
    public var brokerCertificate: URL { directory.appendingPathComponent("broker.crt") }
    public var brokerKey: URL { directory.appendingPathComponent("broker.key") }
    public var passwordFile: URL { directory.appendingPathComponent("passwd") }

    public struct ToolFailure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// - Parameter users: user names and passwords for the password file.
    public init(in directory: URL, users: [(name: String, password: String)]) async throws {
        self.directory = directory
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try "subjectAltName = IP:127.0.0.1, DNS:localhost\n".write(
            toFile: path("broker.ext"), atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await Self.run("openssl", ["req", "-x509"] + key + ["-keyout", path("ca.key"), "-out", path("ca.crt"),
                                                          "-days", "2", "-subj", "/CN=MediaNode test CA"])
        try await Self.run("openssl", ["req"] + key + ["-keyout", path("broker.key"), "-out", path("broker.csr"),
                                                 "-subj", "/CN=localhost"])
        try await Self.run("openssl", ["x509", "-req", "-in", path("broker.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                                 "-CAcreateserial", "-days", "2", "-extfile", path("broker.ext"), "-out", path("broker.crt")])
        for (index, user) in users.enumerated() {
            try await Self.run("mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", path("passwd"), user.name, user.password])
        }
        // mosquitto drops from root to its own user before it reads these.
        for name in ["ca.crt", "broker.crt", "broker.key", "passwd"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path(name))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    }

    static func run(_ tool: String, _ arguments: [String]) async throws {
        let (status, output) = try await ToolRun.capture(tool, arguments)
        guard status == 0 else { throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")): \(output)") }
    }
}
