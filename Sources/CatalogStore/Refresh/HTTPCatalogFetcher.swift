import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

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

/// GETs over HTTP(S) with Foundation's URLSession (libcurl on Linux), for remote catalogs and their artwork.
///
/// The overall deadline is the request's `timeout`; the connect and idle limits are watched here rather
/// than left to URLSession, whose timeouts on Linux do not distinguish a stalled server from a slow one.
/// No HTTP cache: the conditional headers come from the stored sync state, and a 304 must reach the caller
/// as a 304. A body shorter than its Content-Length, or longer than the cap, is an error, never content.
public final class HTTPCatalogFetcher: CatalogFetcher {
    public let limits: HTTPFetchLimits
    private let delegate: TransferDelegate
    /// Made on the first fetch: the process's first URLSession sets up libcurl and its TLS library, which
    /// takes milliseconds the node's start should not wait for, and many runs never fetch at all.
    private let lazySession = Mutex<URLSession?>(nil)

    public init(limits: HTTPFetchLimits = HTTPFetchLimits()) {
        self.limits = limits
        self.delegate = TransferDelegate(maxRedirects: limits.maxRedirects)
    }

    deinit { lazySession.withLock { $0?.invalidateAndCancel() } }

    private var session: URLSession {
        lazySession.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            // Backstops only; the watchdog below is what normally fires.
            configuration.timeoutIntervalForRequest = Self.seconds(limits.connectTimeout + limits.idleTimeout) + 5
            configuration.timeoutIntervalForResource = 24 * 3600
            configuration.httpMaximumConnectionsPerHost = 4
            let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            session = made
            return made
        }
    }

    public func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw RefreshError.unsupportedLocation(request.url.absoluteString)
        }
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: Self.seconds(limits.connectTimeout + limits.idleTimeout) + 5)
        urlRequest.httpMethod = "GET"
        urlRequest.setValue(limits.userAgent, forHTTPHeaderField: "User-Agent")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }

        let task = session.dataTask(with: urlRequest)
        let transfer = Transfer(maxBodyBytes: request.maxBodyBytes ?? limits.maxBodyBytes)
        delegate.register(transfer, for: task.taskIdentifier)
        defer { delegate.unregister(task.taskIdentifier) }

        let watchdog = Task { [limits] in
            let started = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                // URLSession on Linux queues every chunk libcurl reads for the delegate, faster than the
                // delegate runs: on a fast link a flood is gigabytes in that queue before the delegate's own
                // count reaches the cap. The task's byte counts are kept on the network side, ahead of it.
                let received = max(task.countOfBytesReceived, task.countOfBytesExpectedToReceive)
                if received > Int64(transfer.maxBodyBytes) {
                    transfer.fail(.bodyTooLarge(Int(received)))
                    task.cancel()
                    return
                }
                let now = ContinuousClock.now
                let overdue: Bool = transfer.state.withLock { state in
                    if now - started > request.timeout { return true }
                    guard let progress = state.lastProgress else { return now - started > limits.connectTimeout }
                    return now - progress > limits.idleTimeout
                }
                if overdue {
                    transfer.fail(.timedOut)
                    task.cancel()
                    return
                }
            }
        }
        defer { watchdog.cancel() }

        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(continuation)
                task.resume()
            }
        } onCancel: {
            transfer.fail(nil)
            task.cancel()
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

// MARK: - One transfer's state

/// What one request has received so far. Touched by the session's delegate queue, the watchdog and the
/// caller; every access goes through the mutex.
final class Transfer: Sendable {
    struct State {
        var continuation: CheckedContinuation<FetchResponse, any Error>?
        var response: HTTPURLResponse?
        var body = Data()
        /// Set when the headers arrived, then on every chunk.
        var lastProgress: ContinuousClock.Instant?
        /// Why this side cancelled the transfer; nil with `cancelled` for a caller's cancellation.
        var failure: RefreshError?
        var cancelled = false
        var redirects = 0
    }

    let maxBodyBytes: Int
    let state = Mutex(State())

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    func start(_ continuation: CheckedContinuation<FetchResponse, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Records why the transfer is being cancelled (nil: the caller went away); the first reason wins.
    func fail(_ reason: RefreshError?) {
        state.withLock { state in
            guard state.failure == nil, !state.cancelled else { return }
            state.failure = reason
            state.cancelled = true
        }
    }

    /// Resumes the caller once, with the response or the reason it failed.
    func finish(error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<FetchResponse, any Error>?, Result<FetchResponse, any Error>) =
            state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, Self.outcome(state, error: error))
            }
        continuation?.resume(with: result)
    }

    static func outcome(_ state: State, error: (any Error)?) -> Result<FetchResponse, any Error> {
        if let failure = state.failure { return .failure(failure) }
        if state.cancelled { return .failure(CancellationError()) }
        if let error {
            if let urlError = error as? URLError, urlError.code == .timedOut { return .failure(RefreshError.timedOut) }
            return .failure(RefreshError.network(describe(error)))
        }
        guard let response = state.response else { return .failure(RefreshError.network("no response")) }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let encoded = headers["content-encoding"].map { $0.lowercased() != "identity" } ?? false
        if encoded {
            // libcurl decoded the body and checked the encoded length itself; the header no longer
            // describes the bytes we hold.
            headers.removeValue(forKey: "content-length")
        } else if let declared = headers["content-length"].flatMap(Int.init), declared != state.body.count,
            response.statusCode != 304
        {
            return .failure(RefreshError.truncated(expected: declared, received: state.body.count))
        }
        return .success(FetchResponse(status: response.statusCode, headers: headers, body: state.body))
    }
}

/// libcurl's own words ("Connection reset by peer", "transfer closed with 330 bytes remaining to read"),
/// which URLSession on Linux buries in nested user-info dictionaries.
func describe(_ error: any Error) -> String {
    var current: NSError? = error as NSError
    while let error = current {
        if let text = error.userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty { return text }
        current = error.userInfo[NSUnderlyingErrorKey] as? NSError
    }
    return "URL error \((error as NSError).code)"
}

// MARK: - The session delegate

/// Routes URLSession's callbacks to the transfer they belong to. Called on the session's delegate queue.
final class TransferDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let maxRedirects: Int
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(maxRedirects: Int) { self.maxRedirects = maxRedirects }

    func register(_ transfer: Transfer, for identifier: Int) { transfers.withLock { $0[identifier] = transfer } }
    func unregister(_ identifier: Int) { _ = transfers.withLock { $0.removeValue(forKey: identifier) } }
    func transfer(_ task: URLSessionTask) -> Transfer? { transfers.withLock { $0[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let transfer = transfer(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        let tooLarge = transfer.state.withLock { state -> Bool in
            state.response = http
            state.lastProgress = .now
            return http.expectedContentLength > Int64(transfer.maxBodyBytes)
        }
        if tooLarge {
            transfer.fail(.bodyTooLarge(Int(http.expectedContentLength)))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask) else { return }
        let size = transfer.state.withLock { state -> Int in
            // Chunks still queued when the transfer was given up are dropped, not kept.
            guard !state.cancelled else { return 0 }
            state.body.append(data)
            state.lastProgress = .now
            return state.body.count
        }
        // The task's own count runs ahead of what this queue has seen (see the watchdog in `fetch`).
        let received = max(size, Int(dataTask.countOfBytesReceived))
        if received > transfer.maxBodyBytes {
            transfer.fail(.bodyTooLarge(received))
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let transfer = transfer(task) else {
            completionHandler(nil)
            return
        }
        let count = transfer.state.withLock { state -> Int in
            state.redirects += 1
            state.lastProgress = .now
            return state.redirects
        }
        let scheme = request.url?.scheme?.lowercased()
        guard count <= maxRedirects, scheme == "http" || scheme == "https" else {
            transfer.fail(.tooManyRedirects(count))
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(task)?.finish(error: error)
    }
}
