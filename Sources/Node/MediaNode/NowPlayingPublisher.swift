import Artwork
import CatalogStore
import Foundation
import Logging
import MediaJSON
import NowPlaying
import Playback
import ServiceLifecycle

/// Publishes `P/nowplaying` the way MPNowPlayingInfoCenter works: every snapshot is offered and only a
/// change goes out. A playback observer; its service looks for artwork.
///
/// `update` marks now playing at once, for it is on the way to a command's reply (a playItem's success
/// must not come before now playing names the item). The catalog's picture of the item is in that first
/// message: the catalog scaled it at the scan and the queue item carries its key, type and size, so nothing
/// is read or scaled on the way; its bytes follow on its topic, `P/artwork/<the catalog's key>`, the one
/// the content tree names. Any other artwork (a stream's embedded picture, a download) is found in `run()`,
/// and now playing goes out again when it arrives.
actor NowPlayingPublisher: Service, PlaybackObserver {
    /// Readers extrapolate the position; republish once it would be off by more than 40 ms (the contract's
    /// readers expect it within 50 ms).
    private var center = NowPlayingCenter(positionTolerance: 0.04)
    private var snapshot: PlaybackSnapshot?
    private var artwork: [String: (NowPlayingArtwork, ArtworkResolver.Source)] = [:]
    /// Published pictures by the catalog's key: the items of an album share one, read and scaled once.
    private var scaledArtwork: [String: NowPlayingArtwork] = [:]
    private var resolving: Set<String> = []
    /// Whether each item's last search had an embedded picture to look at. Searched once per play: a URL
    /// that fails is not fetched again on every snapshot, only when the item plays again, or when an
    /// embedded picture arrives after a search without one.
    private var searched: [String: Bool] = [:]
    private var current: String?
    /// The identifier path of each item seen, as the content tree named it when the item played.
    private var identifierPaths: [String: [String]] = [:]
    private let resolver: ArtworkResolver
    private let retained: RetainedPublisher
    private let topics: TopicLayout
    private let logger: Logger
    /// Fires when the audio crosses into the next chapter, so now playing names it then (a change, not a
    /// tick): armed from the position and rate of each snapshot, replaced by the next.
    private var chapterTimer: Task<Void, Never>?
    private let clock: any PlaybackClock = SystemPlaybackClock()
    /// Items whose artwork `run()` is to look for.
    private let lookups: AsyncStream<(QueueItem, StreamTags)>
    private let lookupRequests: AsyncStream<(QueueItem, StreamTags)>.Continuation

    init(resolver: ArtworkResolver, retained: RetainedPublisher, topics: TopicLayout, logger: Logger) {
        self.resolver = resolver
        self.retained = retained
        self.topics = topics
        self.logger = logger
        (lookups, lookupRequests) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Looks for the artwork `update` asks for, several items at once, until the node stops.
    nonisolated func run() async throws {
        await cancelWhenGracefulShutdown { [lookups] in
            await withDiscardingTaskGroup { group in
                for await (item, tags) in lookups {
                    group.addTask { await self.resolveArtwork(for: item, tags: tags) }
                }
            }
        }
    }

    /// Marks now playing for each snapshot, with the item's identifier path in the content tree (S31).
    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {
        update(snapshot, nowPlayingIdentifiers: snapshot.item.map { snapshot.queue.context + [$0.identifier] })
    }

    /// Offers a new controller snapshot; publishes it if it changed anything a reader cannot extrapolate.
    /// - Parameter nowPlayingIdentifiers: the item's identifier path in the content tree (S31).
    func update(_ snapshot: PlaybackSnapshot, nowPlayingIdentifiers: [String]? = nil) {
        if let item = snapshot.item, item.identifier != current, artwork[item.identifier] == nil {
            takeCatalogArtwork(for: item, tags: snapshot.tags)
        }
        self.snapshot = snapshot
        if let identifier = snapshot.item?.identifier, let nowPlayingIdentifiers {
            identifierPaths[identifier] = nowPlayingIdentifiers
        }
        publishCurrent()
        let identifier = snapshot.item?.identifier
        if identifier != current {
            // The item that stops playing is searched again next time, unless its picture was found.
            if let previous = current, artwork[previous] == nil { searched[previous] = nil }
            current = identifier
        }
        guard let item = snapshot.item, !resolving.contains(item.identifier) else { return }
        let hasEmbedded = snapshot.tags.image != nil
        let lastSearch = searched[item.identifier]
        guard lastSearch == nil || (hasEmbedded && lastSearch == false) else { return }
        searched[item.identifier] = hasEmbedded
        if searched.count > 1024 { searched.removeValue(forKey: searched.keys.first { $0 != item.identifier }!) }
        resolving.insert(item.identifier)
        lookupRequests.yield((item, snapshot.tags))
    }

    /// - Parameter reanchored: the position given as of now (extrapolated from the snapshot, as any reader
    ///   would), so the message at a chapter boundary shows the place the new chapter starts at.
    private func publishCurrent(reanchored: Bool = false) {
        guard var snapshot else { return }
        let identifier = snapshot.item?.identifier
        let now = clock.now()
        if reanchored { (snapshot.elapsed, snapshot.timestamp) = (snapshot.elapsed(at: now), now) }
        let document = center.offerBytes(NowPlayingInfo(
            snapshot: snapshot, artwork: identifier.flatMap { artwork[$0]?.0 },
            nowPlayingIdentifiers: identifier.flatMap { identifierPaths[$0] }, at: now))
        if let document { retained.publish(topics.nowPlaying, document) }
        armChapterTimer(snapshot, now: now)
        // The picture itself on a fixed topic, for readers that cannot follow `artwork.topic`; the bytes
        // are those already published on that topic, so nothing is copied or compared twice.
        let picture = identifier.flatMap { artwork[$0] }.flatMap { retained.current($0.0.topic) } ?? []
        retained.publish(topics.nowPlayingArtwork, picture)
    }

    /// Sleeps until just past the next chapter's start, then publishes (the chapter now differs from what
    /// readers have); nothing while the position stands still or no chapter is ahead.
    private func armChapterTimer(_ snapshot: PlaybackSnapshot, now: Double) {
        chapterTimer?.cancel()
        chapterTimer = nil
        guard let wait = snapshot.secondsToNextChapter(at: now) else { return }
        chapterTimer = Task { [weak self, clock] in
            // 20 ms past the boundary: the position read then is inside the new chapter.
            do { try await clock.sleep(for: wait + 0.02) } catch { return }
            await self?.chapterBoundaryReached()
        }
    }

    /// Publishes what the chapter now is, and arms the timer for the next one (replacing any timer armed since).
    private func chapterBoundaryReached() { publishCurrent(reanchored: true) }

    private func resolveArtwork(for item: QueueItem, tags: StreamTags) async {
        let found = await findArtwork(for: item, tags: tags)
        resolving.remove(item.identifier)
        guard let (picture, source) = found else { return }
        remember(picture, source: source, for: item.identifier)
        if snapshot?.item?.identifier == item.identifier { publishCurrent() }
    }

    /// The catalog's cached picture, published once per key on the catalog's topic, unless a stream's own
    /// picture outranks it; else what the resolver finds.
    private func findArtwork(for item: QueueItem, tags: StreamTags) async -> (NowPlayingArtwork, ArtworkResolver.Source)? {
        if Self.showsCatalogPicture(item, tags: tags), let key = await catalogKey(of: item),
           let store = resolver.artworkStore {
            if let known = scaledArtwork[key] { return (known, .catalog) }
            if let processed = await CachedArtwork.publishable(key: key, store: store, processor: resolver.processor, logger: logger) {
                let found = publishPicture(processed, key: key)
                scaledArtwork[key] = found
                if scaledArtwork.count > 512 { scaledArtwork.removeValue(forKey: scaledArtwork.keys.first { $0 != key }!) }
                return (found, .catalog)
            }
        }
        guard let (processed, source) = await resolver.resolve(item, tags: tags) else { return nil }
        return (publishPicture(processed), source)
    }

    /// The key of the picture the catalog has cached for `item`: carried by the item when the catalog made
    /// it, else one read of the catalog.
    private func catalogKey(of item: QueueItem) async -> String? {
        if let key = item.userInfo[QueueItemMaker.artworkKeyInfo] { return key }
        return await resolver.cachedKey(of: item)
    }

    /// Whether the catalog's picture is the one to show: always for a local file (the scan took its embedded
    /// picture, or its folder's cover), and for other items while their stream brought none of its own.
    static func showsCatalogPicture(_ item: QueueItem, tags: StreamTags) -> Bool {
        tags.image == nil || LocalPath.path(fromFileURI: item.uri) != nil || item.uri.hasPrefix("/")
    }

    /// Names the catalog's picture of the item in its first message, from what the queue item carries: no
    /// read and no scaling on the way to the reply. When its bytes are already out (another track of the
    /// album) this counts as the item's search (an embedded picture arriving later is still looked at);
    /// else the search publishes them.
    private func takeCatalogArtwork(for item: QueueItem, tags: StreamTags) {
        guard Self.showsCatalogPicture(item, tags: tags), let key = item.userInfo[QueueItemMaker.artworkKeyInfo] else { return }
        if let known = scaledArtwork[key] {
            remember(known, source: .catalog, for: item.identifier)
            if searched[item.identifier] == nil { searched[item.identifier] = false }
            return
        }
        guard let mimeType = item.userInfo[QueueItemMaker.artworkMimeTypeInfo],
              let size = item.userInfo[QueueItemMaker.artworkSizeInfo]?.split(separator: "x").compactMap({ Int($0) }),
              size.count == 2
        else { return }
        let shown = CachedArtwork.publishedSize(width: size[0], height: size[1], maximumDimension: resolver.processor.maximumDimension)
        // Scaled for a smaller --artwork-size, a cached picture is published as JPEG.
        let type = (shown.width, shown.height) == (size[0], size[1]) ? mimeType : "image/jpeg"
        remember(NowPlayingArtwork(topic: topics.artwork(key), mimeType: type, width: shown.width, height: shown.height),
                 source: .catalog, for: item.identifier)
    }

    /// Publishes the picture's bytes on their own retained topic, under `key` (the catalog's, for a cached
    /// picture) or the SHA-256 of the bytes, as the catalog keys what it caches; returns what now playing
    /// says about it.
    private func publishPicture(_ processed: ProcessedArtwork, key: String? = nil) -> NowPlayingArtwork {
        let key = key ?? SHA256.hex(Data(processed.bytes))
        let topic = topics.artwork(key)
        // Content-addressed: the same picture for a whole album is published once.
        retained.publish(topic, processed.bytes)
        return NowPlayingArtwork(topic: topic, mimeType: processed.mimeType, width: processed.width, height: processed.height)
    }

    private func remember(_ found: NowPlayingArtwork, source: ArtworkResolver.Source, for identifier: String) {
        artwork[identifier] = (found, source)
        if artwork.count > 512 { artwork.removeValue(forKey: artwork.keys.first { $0 != identifier }!) }
    }
}
