import MediaJSON
import Playback

/// Decides when `P/nowplaying` is republished, as MPNowPlayingInfoCenter expects to be fed: on every
/// change a reader could not have computed (state, rate, item, metadata, artwork, queue, modes, a
/// seek), never because time passed. Readers extrapolate the position from the last document.
///
/// A plain value with no clock and no I/O: the caller offers each candidate and publishes what comes
/// back. Not thread-safe by itself; keep it inside the one task that publishes.
public struct NowPlayingCenter: Sendable {
    /// How far, in seconds, the position may drift from the last document's extrapolation before it
    /// counts as a jump (a seek) worth republishing.
    public var positionTolerance: Double
    /// What readers last received; the basis every candidate is compared with.
    public private(set) var published: NowPlayingInfo?

    public init(positionTolerance: Double = 0.25) {
        self.positionTolerance = positionTolerance
    }

    /// Offers a candidate; returns the document to publish, or nil when readers already know it.
    public mutating func offer(_ candidate: NowPlayingInfo) -> JSONValue? {
        guard shouldPublish(candidate) else { return nil }
        published = candidate
        return candidate.json
    }

    /// `offer(_:)`, returning the document as the bytes to publish.
    public mutating func offerBytes(_ candidate: NowPlayingInfo) -> [UInt8]? {
        guard shouldPublish(candidate) else { return nil }
        published = candidate
        return candidate.jsonBytes
    }

    /// Builds the candidate from a controller snapshot and offers it (see `NowPlayingInfo.init(snapshot:)`).
    /// - Parameter now: when the document goes out; it names the chapter the audio is in then.
    public mutating func offer(
        snapshot: PlaybackSnapshot, catalog: NowPlayingMetadata? = nil, artwork: NowPlayingArtwork? = nil,
        nowPlayingIdentifiers: [String]? = nil, at now: Double? = nil
    ) -> JSONValue? {
        offer(NowPlayingInfo(
            snapshot: snapshot, catalog: catalog, artwork: artwork, nowPlayingIdentifiers: nowPlayingIdentifiers, at: now))
    }

    /// Forgets what was published, so the next candidate goes out whatever it says (after a broker
    /// reconnect, when the retained document may be gone).
    public mutating func reset() {
        published = nil
    }

    /// Whether readers would see something new in `candidate`.
    public func shouldPublish(_ candidate: NowPlayingInfo) -> Bool {
        guard let last = published else { return true }
        if !last.showsSameAsIgnoringPosition(candidate) { return true }
        return abs(candidate.elapsedPlaybackTime - last.elapsed(at: candidate.timestamp)) > positionTolerance
    }
}

extension NowPlayingInfo {
    /// Equal in everything but the position's anchor (`timestamp`, `elapsedPlaybackTime`).
    func showsSameAsIgnoringPosition(_ other: NowPlayingInfo) -> Bool {
        var anchored = other
        anchored.timestamp = timestamp
        anchored.elapsedPlaybackTime = elapsedPlaybackTime
        return anchored == self
    }
}
