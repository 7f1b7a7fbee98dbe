/// Where the broker is and how to reach it: `mqtt://[user:password@]host[:port]` or `mqtts://...`.
public struct BrokerURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var usesTLS: Bool
    public var username: String?
    public var password: String?

    public init(host: String, port: Int? = nil, usesTLS: Bool = false, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port ?? (usesTLS ? 8883 : 1883)
        self.usesTLS = usesTLS
        self.username = username
        self.password = password
    }

    /// Parses a broker URL; the error says which part is wrong so a typo in a config file is easy to find.
    public init(parsing text: String) throws(MQTTError) {
        let usesTLS: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst("mqtt://".count)
        } else if text.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst("mqtts://".count)
        } else {
            throw MQTTError.invalidConfiguration("broker URL '\(text)' must start with mqtt:// or mqtts://")
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = Self.percentDecoded(credentials[..<colon])
                password = Self.percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                username = Self.percentDecoded(credentials)
            }
        }
        var host = String(rest)
        var port: Int?
        if host.hasPrefix("[") {  // [::1]:1883
            guard let close = host.firstIndex(of: "]") else {
                throw MQTTError.invalidConfiguration("broker URL '\(text)' has an unclosed IPv6 bracket")
            }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) ?? -1 }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            port = Int(host[host.index(after: colon)...]) ?? -1
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw MQTTError.invalidConfiguration("broker URL '\(text)' has no host") }
        if let port, !(1...65535).contains(port) {
            throw MQTTError.invalidConfiguration("broker URL '\(text)' has an invalid port")
        }
        self.init(host: host, port: port, usesTLS: usesTLS, username: username, password: password)
    }

    /// The URL without the password, for logs.
    public var description: String {
        let user = username.map { "\($0)@" } ?? ""
        return "\(usesTLS ? "mqtts" : "mqtt")://\(user)\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"),
               let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high < utf8.endIndex,
               let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
               let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
