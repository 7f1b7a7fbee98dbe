import ContentTree
import Foundation

/// A source fetched from a URL and parsed (podcast RSS, M3U/PLS radio list, JSON catalog): the policy's
/// retries, conditional GET and "never replace good data with bad" checks in one place.
public struct RemoteCatalogProvider: CatalogProvider {
    public let source: CatalogSource
    public let url: URL
    public let parser: any CatalogParser
    public let fetcher: any CatalogFetcher
    public let policy: RefreshPolicy
    /// How the chapter documents a feed names are fetched.
    public var chapterLimits = ChapterFetchLimits()
    let sleep: @Sendable (Duration) async throws -> Void
    let random: @Sendable () -> Double

    /// `sleep` and `random` are injectable so tests run the backoff without waiting.
    public init(
        source: CatalogSource, url: URL, parser: any CatalogParser, fetcher: any CatalogFetcher,
        policy: RefreshPolicy = RefreshPolicy(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.source = source
        self.url = url
        self.parser = parser
        self.fetcher = fetcher
        self.policy = policy
        self.sleep = sleep
        self.random = random
    }

    public func load(_ context: RefreshContext) async throws -> ProviderResult {
        let response = try await fetchWithRetries(headers: policy.conditionalHeaders(for: context.syncState))
        var validators = FetchValidators(
            etag: response.header("ETag"), lastModified: response.header("Last-Modified"))
        if response.status == 304 { return .unchanged(validators) }

        let contentHash = SHA256.hex(response.body)
        validators.contentHash = contentHash
        if contentHash == context.syncState.contentHash { return .unchanged(validators) }

        var snapshot = try parser.parse(response.body, baseURL: url, source: source)
        if policy.rejectEmptyReplacement, context.syncState.lastSuccessAt != nil,
            !snapshot.items.values.contains(where: \.isPlayable)
        {
            throw RefreshError.emptyReplacement
        }
        validators.title = snapshot.title
        if await resolveChapters(in: &snapshot, context: context).incomplete {
            // Read in full next time, so the chapters not fetched now are: empty validators replace the stored
            // ones (nil would keep them) and match no response.
            (validators.contentHash, validators.etag, validators.lastModified) = ("", "", "")
        }
        return .content(snapshot, validators)
    }

    /// GETs with the policy's timeout, retrying retryable failures with backoff; returns a 200 or a 304.
    func fetchWithRetries(headers: [String: String]) async throws -> FetchResponse {
        var attempt = 1
        while true {
            do {
                let response = try await fetchOnce(
                    FetchRequest(
                        url: url, headers: headers, timeout: policy.requestTimeout, maxBodyBytes: policy.maxBodyBytes))
                if response.status == 304 { return response }
                guard (200...299).contains(response.status) else { throw RefreshError.httpStatus(response.status) }
                try policy.validateBody(response)
                return response
            } catch {
                let retryable = (error as? RefreshError)?.isRetryable ?? !(error is CancellationError)
                guard retryable, attempt < policy.maxAttempts else { throw error }
                try await sleep(policy.delay(afterAttempt: attempt, random: random()))
                attempt += 1
            }
        }
    }

    /// One request, abandoned after the policy's timeout even if the fetcher ignores it.
    func fetchOnce(_ request: FetchRequest) async throws -> FetchResponse {
        try await withThrowingTaskGroup(of: FetchResponse?.self) { group in
            group.addTask { try await fetcher.fetch(request) }
            group.addTask {
                try await Task.sleep(for: request.timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else { throw RefreshError.timedOut }
            return response
        }
    }
}
