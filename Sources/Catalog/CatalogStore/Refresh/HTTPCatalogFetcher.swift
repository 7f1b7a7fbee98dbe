import Foundation
import HTTPTransfer

/// Limits an HTTP fetch enforces itself, whatever the server does.
public struct HTTPFetchLimits: Sendable, Hashable {
    /// From the request to the response headers (connect, TLS, and a server that accepts but never answers).
    public var connectTimeout: Duration
    /// The longest silence allowed between body bytes once the headers arrived.
    public var idleTimeout: Duration
    public var maxRedirects: Int
    /// Used when the request does not name its own cap.
    public var maxBodyBytes: Int
    public var userAgent: String

    public init(
        connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(10), maxRedirects: Int = 5,
        maxBodyBytes: Int = 64 << 20, userAgent: String = "MediaNode/0.1"
    ) {
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.userAgent = userAgent
    }
}

/// GETs over HTTP(S) for remote catalogs and their artwork, on the libcurl transfer client.
///
/// The body goes into one buffer no larger than the cap while it arrives, and libcurl reads no faster than
/// that buffer takes it: an endless body costs the cap and is refused at it, a declared length past the
/// cap is refused at the headers. No HTTP cache: the conditional headers come from the stored sync state,
/// and a 304 must reach the caller as a 304. A body shorter than its Content-Length is an error, never content.
public final class HTTPCatalogFetcher: CatalogFetcher {
    public let limits: HTTPFetchLimits
    private let client = HTTPTransferClient()

    public init(limits: HTTPFetchLimits = HTTPFetchLimits()) { self.limits = limits }

    public func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        let transfer = HTTPTransferRequest(
            url: request.url, headers: request.headers, userAgent: limits.userAgent,
            connectTimeout: limits.connectTimeout, idleTimeout: limits.idleTimeout, totalTimeout: request.timeout,
            maxRedirects: limits.maxRedirects, maxBodyBytes: Int64(request.maxBodyBytes ?? limits.maxBodyBytes))
        do {
            let (result, body) = try await client.data(transfer)
            var headers = result.head.headers
            if result.head.isEncoded {
                // libcurl decoded the body and checked the encoded length itself; the header no longer
                // describes the bytes we hold.
                headers.removeValue(forKey: "content-length")
            } else if let declared = result.head.contentLength, declared != Int64(body.count), result.head.status != 304 {
                throw RefreshError.truncated(expected: Int(declared), received: body.count)
            }
            return FetchResponse(status: result.head.status, headers: headers, body: body)
        } catch let error as HTTPTransferError {
            throw RefreshError(error)
        }
    }
}

extension RefreshError {
    /// The refresh's words for what the transfer reported.
    init(_ error: HTTPTransferError) {
        switch error {
        case let .bodyTooLarge(size): self = .bodyTooLarge(Int(clamping: size))
        case .timedOut: self = .timedOut
        case let .truncated(expected, received): self = .truncated(expected: Int(clamping: expected), received: Int(clamping: received))
        case let .tooManyRedirects(count): self = .tooManyRedirects(count)
        case let .unsupportedScheme(location): self = .unsupportedLocation(location)
        case .rangeMismatch, .sink: self = .network(error.description)
        case let .network(detail): self = .network(detail)
        }
    }
}
