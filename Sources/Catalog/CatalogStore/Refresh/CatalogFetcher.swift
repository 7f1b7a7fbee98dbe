import Foundation

/// The seam a network client plugs into: one GET, with the headers the refresh policy chose. Implementations
/// follow redirects and report the final status; they need not retry, the policy does.
public protocol CatalogFetcher: Sendable {
    func fetch(_ request: FetchRequest) async throws -> FetchResponse
}

public struct FetchRequest: Sendable, Hashable {
    public var url: URL
    /// Request headers, e.g. If-None-Match and If-Modified-Since.
    public var headers: [String: String]
    /// The overall deadline, connect to last byte.
    public var timeout: Duration
    /// A larger body is abandoned while it arrives; nil: the fetcher's own cap.
    public var maxBodyBytes: Int?

    public init(url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(15), maxBodyBytes: Int? = nil) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }
}

public struct FetchResponse: Sendable, Hashable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Reads `file://` URLs, so a catalog file on disk refreshes through the same path as a remote one.
public struct FileCatalogFetcher: CatalogFetcher {
    public init() {}

    public func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        guard request.url.isFileURL else { throw CatalogParseError("not a file URL: \(request.url)") }
        let data = try Data(contentsOf: request.url)
        return FetchResponse(status: 200, headers: ["Content-Length": "\(data.count)"], body: data)
    }
}

/// `file://` from disk, `http(s)://` over the network: what the daemon and the command line use.
public struct StandardCatalogFetcher: CatalogFetcher {
    public let http: HTTPCatalogFetcher
    public let file = FileCatalogFetcher()

    public init(limits: HTTPFetchLimits = HTTPFetchLimits()) { http = HTTPCatalogFetcher(limits: limits) }

    public func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        request.url.isFileURL ? try await file.fetch(request) : try await http.fetch(request)
    }
}
