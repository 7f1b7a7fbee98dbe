import Foundation

/// One GET, with the limits it must keep whatever the server does.
public struct HTTPTransferRequest: Sendable, Hashable {
    public var url: URL
    /// Extra request headers (If-None-Match, ...); `Range` is set from `resumeFrom`, not here.
    public var headers: [String: String]
    public var userAgent: String
    /// From the request to the final response's headers: connect, TLS, and a server that accepts but never answers.
    public var connectTimeout: Duration
    /// The longest silence allowed between body bytes once the headers arrived.
    public var idleTimeout: Duration
    /// Connect to last byte; nil: no overall deadline (a long download that keeps moving).
    public var totalTimeout: Duration?
    public var maxRedirects: Int
    /// Body bytes this transfer may receive (after decoding); a larger declared length is refused at the
    /// headers, a larger body at the byte that crosses the cap. Nil: no cap (a file download).
    public var maxBodyBytes: Int64?
    /// Asks for the body from this byte on (`Range: bytes=N-`).
    public var resumeFrom: Int64?
    /// Offer gzip and deflate, decoded before the sink and the cap see the bytes. Off for byte ranges,
    /// whose offsets count the bytes the server stores.
    public var acceptsCompression: Bool

    public init(
        url: URL, headers: [String: String] = [:], userAgent: String = "MediaNode/0.1",
        connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(10), totalTimeout: Duration? = nil,
        maxRedirects: Int = 5, maxBodyBytes: Int64? = nil, resumeFrom: Int64? = nil, acceptsCompression: Bool? = nil
    ) {
        self.url = url
        self.headers = headers
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.resumeFrom = resumeFrom
        self.acceptsCompression = acceptsCompression ?? (resumeFrom == nil)
    }
}

/// The final response's status line and headers, after redirects.
public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    /// Names in lower case; repeated headers joined with ", ".
    public var headers: [String: String]
    /// Where the body came from, after redirects.
    public var url: URL?

    public init(status: Int, headers: [String: String], url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared body length, when the body is sent as stored (not re-encoded).
    public var contentLength: Int64? {
        guard !isEncoded else { return nil }
        return header("content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether libcurl decoded the body: the declared length then describes bytes nobody sees.
    public var isEncoded: Bool { header("content-encoding").map { $0.lowercased() != "identity" } ?? false }

    /// The first byte of a 206 answer (`Content-Range: bytes 100-199/200`).
    public var rangeStart: Int64? {
        guard status == 206, let range = header("content-range")?.lowercased(), range.hasPrefix("bytes ") else { return nil }
        return range.dropFirst(6).split(separator: "-").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// How far a transfer got; reported on the transfer thread, at most every `progressInterval`.
public struct HTTPTransferProgress: Sendable, Hashable {
    /// Body bytes received by this transfer.
    public var received: Int64
    /// Where the received bytes start in the whole resource (the resume offset the server honoured, else 0).
    public var offset: Int64
    /// The whole resource's size when the server said it.
    public var expectedTotal: Int64?
}

/// What a transfer gave.
public struct HTTPTransferResult: Sendable, Hashable {
    public var head: HTTPResponseHead
    /// Body bytes received by this transfer.
    public var received: Int64
    /// Where they start in the whole resource: the resume offset when the server honoured it, else 0.
    public var offset: Int64
    /// A resume was asked for and the server sent the whole body instead (200 to a Range request).
    public var rangeIgnored: Bool
}

/// Why a transfer was given up. Cancellation is `CancellationError`.
public enum HTTPTransferError: Error, Hashable, CustomStringConvertible {
    /// Declared or received: the size that crossed the cap.
    case bodyTooLarge(Int64)
    case timedOut
    case truncated(expected: Int64, received: Int64)
    case tooManyRedirects(Int)
    case unsupportedScheme(String)
    /// A 206 that does not start where the request asked.
    case rangeMismatch(requested: Int64, answered: Int64?)
    /// The sink could not take the bytes (a full disk, say).
    case sink(String)
    /// The connection failed or was reset before a whole response arrived: libcurl's own words.
    case network(String)

    public var description: String {
        switch self {
        case let .bodyTooLarge(size): "body too large: \(size) bytes"
        case .timedOut: "timed out"
        case let .truncated(expected, received): "body truncated: \(received) of \(expected) bytes"
        case let .tooManyRedirects(count): "too many redirects (\(count))"
        case let .unsupportedScheme(url): "unsupported location \(url)"
        case let .rangeMismatch(requested, answered):
            "asked for bytes from \(requested), the server sent from \(answered.map(String.init) ?? "an unknown offset")"
        case let .sink(detail): "could not store the body: \(detail)"
        case let .network(detail): "network error: \(detail)"
        }
    }
}
