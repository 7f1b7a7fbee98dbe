import ArgumentParser
import Foundation
import MQTTTransport
#if canImport(Glibc)
import Glibc
#endif

/// Where the broker password may come from besides the command line, where every local user reads it
/// (`ps`, /proc/PID/cmdline): `--broker-password-file`, or a broker URL in the `--config` file. Either
/// file must be private to its owner (mode 600 or 400), as ssh asks of a private key: a group often
/// holds more users than the node's own (the unit runs in `audio`).
enum BrokerPassword {
    /// The password in `path`: its first line. Refused when other users can read the file.
    static func read(file path: String) throws(ValidationError) -> String {
        try checkPrivate(path, what: "--broker-password-file")
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--broker-password-file: cannot read \(path)")
        }
        let firstLine = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let password = String(firstLine.hasSuffix("\r") ? firstLine.dropLast() : firstLine)
        guard !password.isEmpty else { throw ValidationError("--broker-password-file: \(path) holds no password on its first line") }
        return password
    }

    /// Gives `password` to each broker that names a user and no password of its own.
    static func apply(_ password: String, to brokers: inout [BrokerURL]) throws(ValidationError) {
        let wanting = brokers.indices.filter { brokers[$0].username != nil && brokers[$0].password == nil }
        guard !wanting.isEmpty else {
            throw ValidationError("--broker-password-file: no --broker names a user for it; give one as mqtt://USER@host")
        }
        for index in wanting { brokers[index].password = password }
    }

    /// Throws when anyone but the owner (its group or other users) may read, write or run `path`.
    static func checkPrivate(_ path: String, what: String) throws(ValidationError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ValidationError("\(what): cannot read \(path) (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw ValidationError(
                "\(what) \(path) holds the broker password and users other than its owner can read or change it (mode \(mode)): "
                    + "make it private (chmod 600 \(path))")
        }
    }

    /// Whether an argument is (or sets) a broker URL with a password in it.
    static func holdsPassword(_ argument: String) -> Bool {
        let value = argument.hasPrefix("--broker=") ? String(argument.dropFirst("--broker=".count)) : argument
        guard value.hasPrefix("mqtt://") || value.hasPrefix("mqtts://") else { return false }
        return (try? BrokerURL(parsing: value))?.password != nil
    }
}
