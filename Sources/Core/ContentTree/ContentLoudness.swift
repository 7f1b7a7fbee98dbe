/// What the catalog knows of a playable's loudness: from its ReplayGain or R128 tags, or measured by the
/// node. LUFS by ITU-R BS.1770; peaks with 1.0 = full scale.
public struct ContentLoudness: Sendable, Hashable, Codable {
    public var track: Double?
    public var album: Double?
    public var trackPeak: Double?
    public var albumPeak: Double?

    public init(track: Double?, album: Double? = nil, trackPeak: Double? = nil, albumPeak: Double? = nil) {
        self.track = track
        self.album = album
        self.trackPeak = trackPeak
        self.albumPeak = albumPeak
    }

    /// The track's loudness as published (`loudness`), to 0.1 LU: finer than any listener hears.
    public var published: Double? { track.map { ($0 * 10).rounded() / 10 } }
}
