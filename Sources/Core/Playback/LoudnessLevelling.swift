/// What is known of an item's loudness, from its ReplayGain or R128 tags or the node's own measurement.
public struct ItemLoudness: Sendable, Equatable {
    /// Integrated loudness in LUFS (ITU-R BS.1770), of the track and of its album.
    public var track: Double?
    public var album: Double?
    /// Sample peaks, 1.0 = full scale.
    public var trackPeak: Double?
    public var albumPeak: Double?

    /// Loudness outside this range is no measurement: below it is silence (BS.1770's absolute gate is
    /// -70 LUFS), above it more than full-scale square waves reach.
    public static let plausible = -70.0 ... 3.0

    /// Keeps only plausible values: an absurd tag is as good as none.
    public init(track: Double?, album: Double? = nil, trackPeak: Double? = nil, albumPeak: Double? = nil) {
        self.track = track.flatMap(Self.loudness)
        self.album = album.flatMap(Self.loudness)
        self.trackPeak = trackPeak.flatMap(Self.peak)
        self.albumPeak = albumPeak.flatMap(Self.peak)
    }

    public var isEmpty: Bool { track == nil && album == nil }

    static func loudness(_ value: Double) -> Double? { plausible.contains(value) ? value : nil }
    static func peak(_ value: Double) -> Double? { value.isFinite && value > 0 && value <= 100 ? value : nil }
}

/// Turns loudness into the gain that brings an item to the target (`--loudness-target`).
public struct LoudnessLevelling: Sendable, Equatable {
    /// LUFS; nil plays every item as it is (`off`).
    public var target: Double?

    /// The most a loudness gain lifts or lowers: beyond it a value is a mistake, not a quiet recording.
    public static let maximumGainDb = 24.0
    /// ReplayGain 2.0's reference: a track gain tag is this target minus the track's loudness.
    public static let replayGainReference = -18.0
    public static let defaultTarget = -18.0

    public init(target: Double? = Self.defaultTarget) { self.target = target }

    /// The gain for an item: the album's loudness while `asAlbum` and the album's is known, else the
    /// track's; none while off or unknown. The peak that goes with the loudness used caps it at the output.
    public func gain(for loudness: ItemLoudness?, asAlbum: Bool) -> ItemGain {
        guard let target, let loudness else { return .unity }
        let (level, peak) = asAlbum && loudness.album != nil
            ? (loudness.album, loudness.albumPeak ?? loudness.trackPeak)
            : (loudness.track, loudness.trackPeak)
        guard let level else { return .unity }
        let gain = min(Self.maximumGainDb, max(-Self.maximumGainDb, target - level))
        return ItemGain(loudnessDb: gain, peak: peak)
    }
}

/// Where the controller finds an item's loudness when it loads it: the catalog, which the tags and the
/// node's measurements fill. Asked at each load, so a measurement finished after the queue was made counts.
public protocol LoudnessSource: Sendable {
    /// What is known of the item at `uri`; nil when nothing is (yet).
    func loudness(ofURI uri: String) async -> ItemLoudness?
}
