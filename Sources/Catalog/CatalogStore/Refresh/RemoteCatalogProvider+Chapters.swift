import ContentTree
import Foundation

// MARK: - The chapters a feed names by URL (Podcasting 2.0 `podcast:chapters`), fetched with the feed

/// How the chapter documents a feed names are fetched: each is small, and a broken one must cost little.
public struct ChapterFetchLimits: Sendable, Hashable {
    /// A document larger than this is refused while it arrives (real ones are a few kilobytes).
    public var maxBodyBytes: Int
    /// Per document, connect to last byte.
    public var timeout: Duration
    /// For all documents of one refresh; those not reached are fetched at the next one.
    public var budget: Duration
    /// Documents fetched at once.
    public var concurrency: Int

    public init(maxBodyBytes: Int = 1 << 20, timeout: Duration = .seconds(10), budget: Duration = .seconds(60), concurrency: Int = 4) {
        self.maxBodyBytes = maxBodyBytes
        self.timeout = timeout
        self.budget = budget
        self.concurrency = concurrency
    }
}

extension RemoteCatalogProvider {
    /// What became of the chapter URLs of one snapshot.
    struct ChapterResolution {
        /// Whether some documents were not tried (the budget ran out): the feed is then read again in full at
        /// its next refresh, even if it has not changed, so they are.
        var incomplete = false
    }

    /// Gives each episode that names a chapters URL its chapters: the stored ones while the feed names the
    /// same URL (so they work offline and cost nothing), else the document fetched now. A document that
    /// cannot be fetched or read, or whose chapters are wrong, leaves its episode without chapters and says
    /// why in one line of `snapshot.problems`; it is tried again when the feed next changes.
    func resolveChapters(in snapshot: inout CatalogSnapshot, context: RefreshContext) async -> ChapterResolution {
        let named = snapshot.order.compactMap { identifier -> ContentItem? in
            guard let item = snapshot.items[identifier], item.chaptersURL != nil, item.chapters == nil else { return nil }
            return item
        }
        guard !named.isEmpty else { return ChapterResolution() }
        let stored = (try? await context.database.storedFeedChapters(of: source.identifier)) ?? [:]
        var toFetch: [ContentItem] = []
        for var item in named {
            if let known = stored[item.identifier], known.url == item.chaptersURL {
                item.chapters = known.chapters
                snapshot.update(item)
            } else {
                toFetch.append(item)
            }
        }
        guard !toFetch.isEmpty else { return ChapterResolution() }

        let limits = chapterLimits
        let deadline = ContinuousClock.now + limits.budget
        // Newest episodes first (the snapshot's order), a few at a time, until the budget is spent.
        let fetched = await withTaskGroup(of: (Int, Result<[ContentChapter], any Error>)?.self) { group in
            var results: [Int: Result<[ContentChapter], any Error>] = [:]
            var next = 0
            func startNext() {
                guard next < toFetch.count, ContinuousClock.now < deadline else { return }
                let index = next
                next += 1
                let url = toFetch[index].chaptersURL ?? ""
                group.addTask {
                    do {
                        return (index, .success(try await fetchChapterDocument(url, limits: limits)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<max(1, limits.concurrency) { startNext() }
            while let finished = await group.next() {
                if let (index, result) = finished { results[index] = result }
                startNext()
            }
            return results
        }
        var resolution = ChapterResolution()
        for (index, var item) in toFetch.enumerated() {
            let url = item.chaptersURL ?? ""
            switch fetched[index] {
            case .none:
                resolution.incomplete = true
            case let .failure(error)?:
                snapshot.problems.append("episode \"\(item.title)\": chapters from \(url) ignored: \(error)")
            case let .success(chapters)?:
                let checked = ContentChapter.validated(chapters, duration: item.duration)
                if let problem = checked.problem {
                    snapshot.problems.append("episode \"\(item.title)\": chapters from \(url): \(problem)")
                }
                guard !checked.chapters.isEmpty else { continue }
                item.chapters = checked.chapters
                snapshot.update(item)
            }
        }
        return resolution
    }

    /// One chapters document, within the limits.
    func fetchChapterDocument(_ location: String, limits: ChapterFetchLimits) async throws -> [ContentChapter] {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme) else {
            throw CatalogParseError("not an http(s) or file URL")
        }
        let response = try await fetchOnce(FetchRequest(url: url, timeout: limits.timeout, maxBodyBytes: limits.maxBodyBytes))
        guard (200...299).contains(response.status) else { throw RefreshError.httpStatus(response.status) }
        guard response.body.count <= limits.maxBodyBytes else { throw RefreshError.bodyTooLarge(response.body.count) }
        return try FeedChapters.podcastJSON(response.body)
    }
}
