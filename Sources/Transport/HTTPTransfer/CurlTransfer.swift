import CCurl
import Foundation
import Synchronization

/// One transfer on the loop's multi handle: its easy handle, its callbacks and its deadlines.
///
/// Threading: everything but `cancel()` and `start(_:)` runs on the loop thread, which alone touches the
/// handle, the sink and `state`. The caller reads nothing until the continuation is resumed.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPTransferRequest
    let sink: any HTTPBodySink
    let progress: (@Sendable (HTTPTransferProgress) -> Void)?
    let easy: UnsafeMutableRawPointer
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// Set from any thread; the loop acts on it at its next pass.
    let cancelled = Atomic<Bool>(false)
    private let continuation = Mutex<CheckedContinuation<HTTPTransferResult, any Error>?>(nil)

    // Loop-thread state.
    var started = ContinuousClock.now
    /// When the final response's headers were complete; the idle deadline runs from then.
    var headersDone: ContinuousClock.Instant?
    var lastProgress = ContinuousClock.now
    private var lastReported: ContinuousClock.Instant?
    /// Why this side ended the transfer; wins over the code libcurl reports for the abort.
    var failure: (any Error)?
    private var status = 0
    private var headers: [String: String] = [:]
    private var began = false
    var received: Int64 = 0
    private var offset: Int64 = 0
    private var rangeIgnored = false

    static let progressInterval: Duration = .milliseconds(250)

    init(_ request: HTTPTransferRequest, sink: any HTTPBodySink, progress: (@Sendable (HTTPTransferProgress) -> Void)?) throws {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPTransferError.unsupportedScheme(request.url.absoluteString)
        }
        guard let easy = curl_easy_init() else { throw HTTPTransferError.network("libcurl could not make a handle") }
        self.request = request
        self.sink = sink
        self.progress = progress
        self.easy = easy
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        configure()
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func configure() {
        mn_curl_set_string(easy, CURLOPT_URL, request.url.absoluteString)
        mn_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        mn_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        mn_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        mn_curl_set_long(easy, CURLOPT_MAXREDIRS, request.maxRedirects)
        // The loop runs several transfers on one thread: no SIGALRM for name lookups.
        mn_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        mn_curl_set_string(easy, CURLOPT_USERAGENT, request.userAgent)
        mn_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        mn_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        if let total = request.totalTimeout { mn_curl_set_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(total)) }
        if request.acceptsCompression { mn_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "") }
        // libcurl refuses a larger Content-Length itself, before the first body byte (the header callback
        // does too, with the declared size in hand for the error).
        if let cap = request.maxBodyBytes { mn_curl_set_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(cap)) }

        var lines = request.headers.filter { $0.key.lowercased() != "range" }.map { "\($0.key): \($0.value)" }
        if let from = request.resumeFrom, from > 0 { lines.append("Range: bytes=\(from)-") }
        for line in lines.sorted() { headerList = curl_slist_append(headerList, line) }
        if let headerList { mn_curl_set_list(easy, CURLOPT_HTTPHEADER, headerList) }

        let me = Unmanaged.passUnretained(self).toOpaque()
        mn_curl_set_pointer(easy, CURLOPT_WRITEDATA, me)
        mn_curl_set_pointer(easy, CURLOPT_HEADERDATA, me)
        mn_curl_set_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
                .body(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        mn_curl_set_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
                .header(UnsafeRawBufferPointer(start: data, count: size * count))
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    // MARK: - The caller's side

    func start(_ continuation: CheckedContinuation<HTTPTransferResult, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Resumes the caller once.
    func resume(with result: Result<HTTPTransferResult, any Error>) {
        continuation.withLock { continuation in
            continuation?.resume(with: result)
            continuation = nil
        }
    }

    // MARK: - libcurl's callbacks (loop thread)

    /// One header line of any response, redirects and 1xx included; returning less than its size aborts.
    private func header(_ line: UnsafeRawBufferPointer) -> Int {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        lastProgress = .now
        if text.hasPrefix("HTTP/") {
            status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            headers = [:]
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].lowercased()
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        } else if text.isEmpty, status >= 200, !isRedirect {
            headersDone = .now
            let head = HTTPResponseHead(status: status, headers: headers)
            if let cap = request.maxBodyBytes, let declared = head.contentLength, declared > cap {
                failure = HTTPTransferError.bodyTooLarge(declared)
                return 0
            }
        }
        return line.count
    }

    /// A 3xx that libcurl will follow: its body is skipped and its headers are not the answer.
    private var isRedirect: Bool { (300...399).contains(status) && headers["location"] != nil }

    /// Body bytes of the final response; returning less than their size aborts.
    private func body(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastProgress = .now
        do {
            try beginIfNeeded()
            let total = received + Int64(bytes.count)
            if let cap = request.maxBodyBytes, total > cap {
                failure = HTTPTransferError.bodyTooLarge(total)
                return 0
            }
            try sink.write(bytes)
            received = total
            report(final: false)
            return bytes.count
        } catch {
            failure = (error as? HTTPTransferError) ?? HTTPTransferError.sink("\(error)")
            return 0
        }
    }

    private func beginIfNeeded() throws {
        guard !began else { return }
        began = true
        var head = HTTPResponseHead(status: status, headers: headers, url: effectiveURL)
        if head.status == 0 { head.status = responseCode }
        if let from = request.resumeFrom, from > 0 {
            if head.status == 206 {
                guard head.rangeStart == from else { throw HTTPTransferError.rangeMismatch(requested: from, answered: head.rangeStart) }
                offset = from
            } else if (200...299).contains(head.status) {
                rangeIgnored = true
            }
        }
        try sink.begin(head, offset: offset)
    }

    private func report(final: Bool) {
        guard let progress else { return }
        let now = ContinuousClock.now
        if !final, let last = lastReported, now - last < Self.progressInterval { return }
        lastReported = now
        let head = HTTPResponseHead(status: status, headers: headers)
        progress(HTTPTransferProgress(received: received, offset: offset, expectedTotal: head.contentLength.map { $0 + offset }))
    }

    // MARK: - The end (loop thread)

    /// The first deadline passed, if any.
    func overdue(at now: ContinuousClock.Instant) -> Bool {
        if let total = request.totalTimeout, now - started > total { return true }
        guard headersDone != nil else { return now - started > request.connectTimeout }
        return now - lastProgress > request.idleTimeout
    }

    /// When the loop must look again at this transfer's deadlines.
    func nextDeadline() -> ContinuousClock.Instant {
        var next = headersDone == nil ? started + request.connectTimeout : lastProgress + request.idleTimeout
        if let total = request.totalTimeout { next = min(next, started + total) }
        return next
    }

    /// What the caller gets once libcurl finished with `code`.
    func outcome(_ code: CURLcode) -> Result<HTTPTransferResult, any Error> {
        if let failure { return .failure(failure) }
        if cancelled.load(ordering: .relaxed) { return .failure(CancellationError()) }
        switch code {
        case CURLE_OK: break
        case CURLE_OPERATION_TIMEDOUT: return .failure(HTTPTransferError.timedOut)
        case CURLE_TOO_MANY_REDIRECTS: return .failure(HTTPTransferError.tooManyRedirects(request.maxRedirects + 1))
        case CURLE_UNSUPPORTED_PROTOCOL: return .failure(HTTPTransferError.unsupportedScheme(effectiveURL?.absoluteString ?? "?"))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(HTTPTransferError.bodyTooLarge(HTTPResponseHead(status: status, headers: headers).contentLength ?? received))
        case CURLE_PARTIAL_FILE:
            if let declared = HTTPResponseHead(status: status, headers: headers).contentLength {
                return .failure(HTTPTransferError.truncated(expected: declared, received: received))
            }
            return .failure(HTTPTransferError.network(message(code)))
        default: return .failure(HTTPTransferError.network(message(code)))
        }
        do { try beginIfNeeded() } catch { return .failure(error) }
        report(final: true)
        let head = HTTPResponseHead(status: responseCode, headers: headers, url: effectiveURL)
        return .success(HTTPTransferResult(head: head, received: received, offset: offset, rangeIgnored: rangeIgnored))
    }

    /// libcurl's own words ("Connection reset by peer", "Failed to connect to ... port 80").
    private func message(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    private var responseCode: Int {
        var code = 0
        mn_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    private var effectiveURL: URL? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard mn_curl_get_string(easy, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else { return nil }
        return URL(string: String(cString: pointer))
    }
}
