import Playback

/// Where a dashboard finds the current item's picture: the node publishes the bytes once on their own
/// retained topic, and now playing only points at it.
public struct NowPlayingArtwork: Sendable, Equatable {
    /// The full `P/artwork/<key>` topic.
    public var topic: String
    public var mimeType: String
    public var width: Int?
    public var height: Int?

    public init(topic: String, mimeType: String, width: Int? = nil, height: Int? = nil) {
        self.topic = topic
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }
}

/// The now-playing object of `P/nowplaying`, as MPNowPlayingInfoCenter's dictionary: every key the
/// current item has, with the position true at `timestamp` so readers extrapolate it themselves.
public struct NowPlayingInfo: Sendable, Equatable {
    public var state: PlaybackState
    /// Seconds since the Unix epoch at which `elapsedPlaybackTime` was true.
    public var timestamp: Double
    public var elapsedPlaybackTime: Double
    /// How fast `elapsedPlaybackTime` advances: 0 unless playing (S12).
    public var playbackRate: Double
    public var defaultPlaybackRate: Double
    /// Seconds; nil when unknown and always nil for a live stream (S14).
    public var playbackDuration: Double?
    public var metadata: NowPlayingMetadata
    /// Counts from 0.
    public var playbackQueueIndex: Int?
    public var playbackQueueCount: Int?
    public var isLiveStream: Bool
    public var identifier: String?
    /// The playing item's identifier path through the content tree (S31).
    public var nowPlayingIdentifiers: [String]?
    public var artwork: NowPlayingArtwork?
    public var repeatMode: RepeatMode
    public var shuffleMode: ShuffleMode
    /// The item's loudness (LUFS) from its tags or the node's measurement, once known.
    public var loudness: Double?

    /// Nothing loaded: published as exactly `{"state":"stopped"}`.
    public static let stopped = NowPlayingInfo(
        state: .stopped, timestamp: 0, elapsedPlaybackTime: 0, playbackRate: 0, defaultPlaybackRate: 1,
        playbackDuration: nil, metadata: NowPlayingMetadata(), playbackQueueIndex: nil, playbackQueueCount: nil,
        isLiveStream: false, identifier: nil, nowPlayingIdentifiers: nil, artwork: nil, repeatMode: .off,
        shuffleMode: .off)

    /// Every field as given; `init(snapshot:...)` is the usual way in, this one is for callers that
    /// assemble now playing themselves. The state rules (stopped, paused rate 0, live without a
    /// duration) are applied here too.
    public init(
        state: PlaybackState, timestamp: Double, elapsedPlaybackTime: Double, playbackRate: Double,
        defaultPlaybackRate: Double = 1, playbackDuration: Double? = nil,
        metadata: NowPlayingMetadata = NowPlayingMetadata(), playbackQueueIndex: Int? = nil,
        playbackQueueCount: Int? = nil, isLiveStream: Bool = false, identifier: String? = nil,
        nowPlayingIdentifiers: [String]? = nil, artwork: NowPlayingArtwork? = nil, repeatMode: RepeatMode = .off,
        shuffleMode: ShuffleMode = .off
    ) {
        self.state = state
        self.timestamp = timestamp
        self.elapsedPlaybackTime = elapsedPlaybackTime
        self.playbackRate = playbackRate
        self.defaultPlaybackRate = defaultPlaybackRate
        self.playbackDuration = playbackDuration
        self.metadata = metadata
        self.playbackQueueIndex = playbackQueueIndex
        self.playbackQueueCount = playbackQueueCount
        self.isLiveStream = isLiveStream
        self.identifier = identifier
        self.nowPlayingIdentifiers = nowPlayingIdentifiers
        self.artwork = artwork
        self.repeatMode = repeatMode
        self.shuffleMode = shuffleMode
        applyStateRules()
    }

    /// Now playing for a controller snapshot.
    ///
    /// - Parameters:
    ///   - catalog: what the catalog knows about the item; nil reads it from the snapshot's queue item
    ///     (`NowPlayingMetadata(item:)`). The stream's tags fill what it lacks.
    ///   - artwork: the item's published artwork, once it has arrived (S13: now playing never waits).
    ///   - nowPlayingIdentifiers: the playing item's identifier path, from the content tree.
    ///   - now: when the document goes out (seconds since the epoch): the chapter is the one the audio is in
    ///     then, which may be later than the snapshot's `timestamp`; nil: at `timestamp`.
    public init(
        snapshot: PlaybackSnapshot, catalog: NowPlayingMetadata? = nil, artwork: NowPlayingArtwork? = nil,
        nowPlayingIdentifiers: [String]? = nil, at now: Double? = nil
    ) {
        guard snapshot.state != .stopped, let item = snapshot.item else {
            self = .stopped
            return
        }
        var metadata = NowPlayingMetadata.merged(
            catalog: catalog ?? NowPlayingMetadata(item: item), tags: snapshot.tags, isLiveStream: item.isLiveStream)
        // Only the item's own chapters, where the audio is: an item without any shows none of the three keys.
        let chapter = item.chapters.index(at: snapshot.elapsed(at: now ?? snapshot.timestamp))
        metadata.chapterNumber = chapter
        metadata.chapterCount = chapter.map { _ in item.chapters.count }
        metadata.chapterTitle = chapter.map { item.chapters[$0].title }
        self.init(
            state: snapshot.state, timestamp: snapshot.timestamp, elapsedPlaybackTime: snapshot.elapsed,
            playbackRate: snapshot.playbackRate, defaultPlaybackRate: snapshot.defaultPlaybackRate,
            playbackDuration: snapshot.duration ?? item.duration, metadata: metadata,
            playbackQueueIndex: snapshot.queue.index, playbackQueueCount: snapshot.queue.count,
            isLiveStream: item.isLiveStream, identifier: item.identifier,
            nowPlayingIdentifiers: nowPlayingIdentifiers, artwork: artwork, repeatMode: snapshot.queue.repeatMode,
            shuffleMode: snapshot.queue.shuffleMode)
        loudness = snapshot.loudness.map { ($0 * 10).rounded() / 10 }
    }

    /// The position a reader computes at `time`: elapsed + (time - timestamp) x rate, within the item.
    public func elapsed(at time: Double) -> Double {
        let position = max(0, elapsedPlaybackTime + (time - timestamp) * playbackRate)
        return playbackDuration.map { min(position, $0) } ?? position
    }

    /// The rules every reader relies on, whoever built the value.
    private mutating func applyStateRules() {
        if state == .stopped {  // nothing else is shown, so nothing else may differ
            (timestamp, elapsedPlaybackTime, playbackRate, defaultPlaybackRate) = (0, 0, 0, 1)
            (playbackDuration, playbackQueueIndex, playbackQueueCount) = (nil, nil, nil)
            (metadata, isLiveStream, identifier) = (NowPlayingMetadata(), false, nil)
            (nowPlayingIdentifiers, artwork, repeatMode, shuffleMode) = (nil, nil, .off, .off)
            loudness = nil
            return
        }
        if state != .playing { playbackRate = 0 }  // paused or interrupted: the position stands still
        if isLiveStream { playbackDuration = nil }
        if let duration = playbackDuration, !(duration > 0) || !duration.isFinite { playbackDuration = nil }
        elapsedPlaybackTime = max(0, elapsedPlaybackTime)
        if let duration = playbackDuration { elapsedPlaybackTime = min(elapsedPlaybackTime, duration) }
        if let index = playbackQueueIndex, index < 0 || index >= (playbackQueueCount ?? .max) {
            playbackQueueIndex = nil
        }
        metadata = metadata.cleaned
    }
}
