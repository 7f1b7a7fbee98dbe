import CatalogStore
import ContentTree
import Foundation
import Synchronization
import Testing

/// A scripted server: each fetch takes the next response (or error) and records the request.
final class ScriptedFetcher: CatalogFetcher {
    enum Step: Sendable { case respond(FetchResponse), fail(RefreshError), hang }
    let steps: Mutex<[Step]>
    let requests = Mutex<[FetchRequest]>([])
    init(_ steps: [Step]) { self.steps = Mutex(steps) }

    func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        requests.withLock { $0.append(request) }
        let step = steps.withLock { $0.isEmpty ? Step.fail(.httpStatus(599)) : $0.removeFirst() }
        switch step {
        case let .respond(response): return response
        case let .fail(error): throw error
        case .hang:
            try await Task.sleep(for: .seconds(30))
            return FetchResponse(status: 200)
        }
    }
}

@Suite("refresh on bad networks")
struct RefreshTests {
    static let feed = Data("""
        <rss><channel><title>Show</title>
        <item><guid>1</guid><title>One</title><enclosure url="https://a.example/1.mp3"/></item>
        </channel></rss>
        """.utf8)

    func provider(_ fetcher: ScriptedFetcher, attempts: Int = 3) -> RemoteCatalogProvider {
        let url = URL(string: "https://pods.example.net/feed.xml")!
        return RemoteCatalogProvider(
            source: CatalogSource(kind: .podcast, location: url.absoluteString), url: url, parser: PodcastFeedParser(),
            fetcher: fetcher, policy: RefreshPolicy(requestTimeout: .milliseconds(200), maxAttempts: attempts),
            sleep: { _ in }, random: { 0.5 })
    }

    @Test("backoff doubles, is capped, and jitter only shortens it")
    func backoff() {
        let policy = RefreshPolicy(baseDelay: .seconds(1), maxDelay: .seconds(10), jitter: 0.5)
        #expect(policy.delay(afterAttempt: 1, random: 0) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, random: 0) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, random: 0) == .seconds(4))
        #expect(policy.delay(afterAttempt: 9, random: 0) == .seconds(10))
        #expect(policy.delay(afterAttempt: 2, random: 1) == .seconds(1))
        #expect(policy.nextRefresh(interval: .seconds(600), consecutiveFailures: 0) == .seconds(600))
        #expect(policy.nextRefresh(interval: .seconds(600), consecutiveFailures: 5) == .seconds(4800))
        #expect(policy.isRetryable(status: 503) && policy.isRetryable(status: 429) && !policy.isRetryable(status: 404))
    }

    @Test("a refresh retries through errors and timeouts, then sends conditional headers and accepts 304")
    func retriesAndConditionalGet() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let fetcher = ScriptedFetcher([
            .respond(FetchResponse(status: 503)), .hang,
            .respond(FetchResponse(status: 200, headers: ["ETag": "\"v1\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], body: Self.feed)),
            .respond(FetchResponse(status: 304)),
        ])
        let refresher = CatalogRefresher(database: database)
        guard case .updated = await refresher.refresh(provider(fetcher)) else {
            Issue.record("expected an update")
            return
        }
        #expect(await refresher.refresh(provider(fetcher)) == .unchanged)
        let sent = fetcher.requests.withLock { $0 }
        #expect(sent.count == 4)
        #expect(sent[3].headers == ["If-None-Match": "\"v1\"", "If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"])
        let state = try await database.syncState(for: provider(fetcher).source.identifier)
        #expect(state.etag == "\"v1\"" && state.lastError == nil && state.consecutiveFailures == 0)
    }

    @Test("a failed, truncated or empty refresh keeps the previous content and records the error")
    func neverReplacesGoodData() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        let good = ScriptedFetcher([.respond(FetchResponse(status: 200, body: Self.feed))])
        _ = await refresher.refresh(provider(good))
        let source = provider(good).source
        let before = try await allChildren(database, of: ContentItem.Section.podcasts)
        #expect(before.map(\.title) == ["Show"])

        let empty = Data("<rss><channel><title>Show</title></channel></rss>".utf8)
        let cut = FetchResponse(status: 200, headers: ["Content-Length": "\(Self.feed.count)"], body: Self.feed.prefix(40))
        for steps: [ScriptedFetcher.Step] in [
            [.fail(.httpStatus(500)), .fail(.httpStatus(502)), .fail(.httpStatus(503))],
            [.respond(FetchResponse(status: 404))],
            [.respond(cut), .respond(cut), .respond(cut)],
            [.respond(FetchResponse(status: 200, body: Data("<rss><chan".utf8)))],
            [.respond(FetchResponse(status: 200, body: empty))],
        ] {
            guard case .failed = await refresher.refresh(provider(ScriptedFetcher(steps))) else {
                Issue.record("expected a failure for \(steps)")
                continue
            }
            #expect(try await allChildren(database, of: ContentItem.Section.podcasts) == before)
        }
        let state = try await database.syncState(for: source.identifier)
        #expect(state.consecutiveFailures == 5 && state.lastError != nil && state.lastSuccessAt != nil)
    }
}
