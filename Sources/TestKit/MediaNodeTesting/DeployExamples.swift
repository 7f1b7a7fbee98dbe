import Foundation

/// deploy/'s broker examples run as shipped: only where things live changes (paths, ports, addresses).
public enum DeployExamples {
    /// The repository's deploy/ directory.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy")

    public struct MissingText: Error, CustomStringConvertible {
        public var description: String
    }

    /// The example at `path` (under deploy/) with each key of `replacements` replaced; every key must occur,
    /// so an example edited out from under its test fails loudly instead of running something else.
    public static func text(_ path: String, replacing replacements: [String: String]) throws -> String {
        var text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
        for (original, local) in replacements {
            guard text.contains(original) else { throw MissingText(description: "deploy/\(path) no longer has \(original)") }
            text = text.replacingOccurrences(of: original, with: local)
        }
        return text
    }

    /// deploy/mosquitto-production.conf (TLS, passwords, deploy/medianode.acl) on a loopback port, with
    /// `fixtures`' certificates and password file; the ACL is copied into `scratch`.
    public static func productionBroker(fixtures: BrokerSecurityFixtures, scratch: URL, startNow: Bool = true) async throws
        -> MosquittoBroker {
        let acl = scratch.appendingPathComponent("medianode.acl")
        try FileManager.default.copyItem(at: directory.appendingPathComponent("medianode.acl"), to: acl)
        // mosquitto drops from root to its own user before it reads the ACL.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: acl.path)
        return try await MosquittoBroker(startNow: startNow) { port, brokerDirectory in
            try text("mosquitto-production.conf", replacing: [
                "/etc/mosquitto/passwd": fixtures.passwordFile.path,
                "/etc/mosquitto/medianode.acl": acl.path,
                "/etc/mosquitto/certs/broker.crt": fixtures.brokerCertificate.path,
                "/etc/mosquitto/certs/broker.key": fixtures.brokerKey.path,
                "/etc/mosquitto/certs/ca.crt": fixtures.caCertificate.path,
                "/var/lib/mosquitto/": brokerDirectory.path + "/",
                "listener 8883": "listener \(port) 127.0.0.1",
            ]).components(separatedBy: "\n")
        }
    }
}
