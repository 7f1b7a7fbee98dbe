import Foundation

/// How hard a refresh tries on a bad network, as pure arithmetic so it is tested without one: per-request
/// timeouts, retries with exponential backoff and jitter, conditional GETs, and what counts as a bad answer.
public struct RefreshPolicy: Sendable, Hashable {
    public var requestTimeout: Duration
    /// Attempts per refresh, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// 0...1: the share of each delay that is randomized (0.5: between 50% and 100% of the backoff).
    public var jitter: Double
    /// A larger body is refused, not parsed.
    public var maxBodyBytes: Int
    /// Refuse a snapshot with no playable items when the source had content: feeds that suddenly come back
    /// empty are far more often broken than really empty.
    public var rejectEmptyReplacement: Bool

    public init(
        requestTimeout: Duration = .seconds(15), maxAttempts: Int = 4, baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60), jitter: Double = 0.5, maxBodyBytes: Int = 64 << 20,
        rejectEmptyReplacement: Bool = true
    ) {
        self.requestTimeout = requestTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
        self.maxBodyBytes = maxBodyBytes
        self.rejectEmptyReplacement = rejectEmptyReplacement
    }

    /// The wait before attempt `attempt + 1` after `attempt` failed (1-based): base x 2^(attempt-1), capped,
    /// then reduced by up to `jitter` of itself using `random` in 0..<1, so many nodes do not retry in step.
    public func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        let exponent = min(max(0, attempt - 1), 30)
        let backoff = min(seconds(maxDelay), seconds(baseDelay) * pow(2, Double(exponent)))
        let factor = 1 - jitter * min(max(random, 0), 1)
        return .milliseconds(Int64((backoff * factor * 1000).rounded()))
    }

    /// The delay before the next scheduled refresh after `failures` consecutive failed refreshes: the normal
    /// interval when healthy, growing (capped at 8x) while a source keeps failing.
    public func nextRefresh(interval: Duration, consecutiveFailures failures: Int) -> Duration {
        guard failures > 0 else { return interval }
        return interval * Int(pow(2, Double(min(failures, 3))))
    }

    /// If-None-Match / If-Modified-Since from what the last good response said.
    public func conditionalHeaders(for state: SourceSyncState) -> [String: String] {
        var headers: [String: String] = [:]
        // An empty validator is a forgotten one (see `RemoteCatalogProvider.load`).
        if let etag = state.etag, !etag.isEmpty { headers["If-None-Match"] = etag }
        if let lastModified = state.lastModified, !lastModified.isEmpty { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// Statuses worth another attempt: timeouts, throttling and server errors; other 4xx are final.
    public func isRetryable(status: Int) -> Bool {
        status == 408 || status == 425 || status == 429 || (500...599).contains(status)
    }

    /// Checks that a 200 body is whole: a body shorter than its Content-Length is a cut connection.
    public func validateBody(_ response: FetchResponse) throws {
        if response.body.count > maxBodyBytes {
            throw RefreshError.bodyTooLarge(response.body.count)
        }
        if let declared = response.header("Content-Length").flatMap(Int.init), declared != response.body.count {
            throw RefreshError.truncated(expected: declared, received: response.body.count)
        }
        if response.body.isEmpty { throw RefreshError.emptyBody }
    }

    private func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Why a refresh attempt failed.
public enum RefreshError: Error, Equatable, CustomStringConvertible {
    case httpStatus(Int)
    case timedOut
    case truncated(expected: Int, received: Int)
    case bodyTooLarge(Int)
    case emptyBody
    case emptyReplacement
    case unsupportedLocation(String)
    /// The connection failed or was reset before a whole response arrived.
    case network(String)
    case tooManyRedirects(Int)

    /// Whether the failure says the server was out of reach (rather than reachable but unhappy).
    public var isConnectivityFailure: Bool {
        switch self {
        case .timedOut, .network: true
        default: false
        }
    }

    /// Whether another attempt in the same refresh could succeed.
    public var isRetryable: Bool {
        switch self {
        case .timedOut, .truncated, .network: true
        case let .httpStatus(status): RefreshPolicy().isRetryable(status: status)
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .httpStatus(status): "HTTP status \(status)"
        case .timedOut: "timed out"
        case let .truncated(expected, received): "body truncated: \(received) of \(expected) bytes"
        case let .bodyTooLarge(size): "body too large: \(size) bytes"
        case .emptyBody: "empty body"
        case .emptyReplacement: "the new content has no playable items; keeping the previous content"
        case let .unsupportedLocation(location): "unsupported location \(location)"
        case let .network(detail): "network error: \(detail)"
        case let .tooManyRedirects(count): "too many redirects (\(count))"
        }
    }
}
