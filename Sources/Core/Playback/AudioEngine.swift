/// Identifies one load of one item into the engine, so a fact can be traced to the load that caused it.
///
/// The core hands out a new token for every `load` and every `preloadNext`; a fact stamped with an older
/// token than the one the core is waiting for is stale and must not satisfy the wait.
public struct PlaybackToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// The item to switch to without a gap when the current one is about to finish.
public struct NextItem: Sendable, Equatable {
    public var uri: String
    public var token: PlaybackToken
    public init(uri: String, token: PlaybackToken) {
        self.uri = uri
        self.token = token
    }
}

/// What the engine is doing, as the engine itself reports it.
public enum EngineState: String, Sendable {
    case idle, loading, paused, playing
}

/// Tags read from a stream (GStreamer tag messages, ICY metadata).
public struct StreamTags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var albumTitle: String?
    public var genre: String?
    public var composer: String?
    public var releaseDate: String?
    public var albumTrackNumber: Int?
    public var albumTrackCount: Int?
    public var discNumber: Int?
    public var discCount: Int?
    /// Encoded image bytes of an embedded picture (front cover preferred), if the stream carries one.
    public var image: [UInt8]?
    public var imageMimeType: String?

    public init() {}

    public var isEmpty: Bool { self == StreamTags() }
}

/// An audio stream inside the current item, as a language option (S1: enable/disableLanguageOption).
public struct AudioStreamOption: Sendable, Equatable {
    public var index: Int
    /// BCP 47 language tag, if the stream names one.
    public var languageTag: String?
    public var isActive: Bool
    public init(index: Int, languageTag: String?, isActive: Bool) {
        self.index = index
        self.languageTag = languageTag
        self.isActive = isActive
    }
}

/// A raw fact the audio engine reports. Only the core decides what a fact means.
public enum AudioFact: Sendable, Equatable {
    /// The engine reached a new steady state.
    case stateChanged(EngineState, PlaybackToken)
    /// The item with this token started producing audio (also after a gapless switch).
    case streamStarted(PlaybackToken)
    /// The item with this token played to its end and nothing was queued after it.
    case endOfStream(PlaybackToken)
    /// The item could not be played (missing file, corrupt data, dead URL) or the output failed.
    case error(PlaybackToken, AudioError)
    case tags(PlaybackToken, StreamTags)
    /// Duration became known or changed; nil for a live stream.
    case duration(PlaybackToken, Double?)
    case buffering(PlaybackToken, percent: Int)
    /// The sound server took the output from the music (a cork request of its policy, e.g. while a phone
    /// call plays: false) or gave it back (an uncork request: true).
    case focusChanged(hasFocus: Bool)
    /// The output is gone (the sound server crashed or restarts). The engine holds the item where it was
    /// heard, answers `play` with a `.device` error meanwhile, and tries the output again.
    case outputLost(String)
    /// The output answers again, and the item is ready to play on from where it was lost.
    case outputRestored
}

public struct AudioError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The item itself is bad: missing, unreadable, undecodable, unreachable.
        case item
        /// The audio output is gone (S4 deviceNotFound).
        case device
        /// Anything else the engine could not do.
        case engine
    }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { "\(kind.rawValue): \(message)" }
}

/// A position and the moment it was true: across actor hops the moment matters as much as the value.
public struct PositionSample: Sendable, Equatable {
    public var seconds: Double
    /// Seconds since the Unix epoch when the engine read `seconds`; nil: the caller's "now".
    public var sampledAt: Double?
    public init(seconds: Double, sampledAt: Double?) {
        self.seconds = seconds
        self.sampledAt = sampledAt
    }
}

/// The audio engine the core drives. One implementation plays through GStreamer; the testing library
/// has an in-memory twin so the core is tested without GStreamer.
///
/// Every method may block briefly on the engine's own executor; none runs blocking work on the
/// caller's thread.
public protocol AudioEngine: AnyObject, Sendable {
    /// Facts in the order the engine observed them. There is one stream per engine.
    var facts: AsyncStream<AudioFact> { get }

    /// Replaces whatever is loaded with `uri` (a file path or URL) and prerolls it paused, with `next`
    /// already named as its gapless successor: an item short enough to be read whole during the
    /// preroll asks for its successor before a separate `preloadNext` could name it.
    /// Returns once the engine has accepted the load; completion is reported as facts.
    func load(uri: String, token: PlaybackToken, startAt seconds: Double?, next: NextItem?) async throws(AudioError)
    /// Names the item to switch to gaplessly when the current one is about to finish (nil: none).
    func preloadNext(uri: String?, token: PlaybackToken?) async
    func play() async throws(AudioError)
    func pause() async throws(AudioError)
    /// Pauses and reads the position where it stopped, in one call to the engine.
    func pauseAndSample() async throws(AudioError) -> PositionSample?
    /// Stops and releases the current item.
    func stop() async
    /// Flushing seek within the current item.
    func seek(to seconds: Double) async throws(AudioError)
    /// Playback rate with pitch preserved.
    func setRate(_ rate: Double) async throws(AudioError)
    /// The session's factors of the output gain; the engine multiplies them with the heard item's own gain
    /// (`OutputGain.amplitude`) and ramps the speed gain.
    func setOutputGain(_ gain: OutputGain) async
    /// The gain of the item loaded or preloaded under `token`, applied from the moment that item is heard.
    /// Call before the load or preload that names the token.
    func setItemGain(_ gain: ItemGain, for token: PlaybackToken) async
    /// The title of the item loaded or preloaded under `token`, which a sound server shows as its stream's
    /// name from the moment that item is heard. Call before the load or preload that names the token.
    func setItemTitle(_ title: String?, for token: PlaybackToken) async
    /// Current position in seconds, if anything is loaded.
    func position() async -> Double?
    /// The current position with the time it was read, so a late answer does not skew the anchor.
    func positionSample() async -> PositionSample?
    func audioStreams() async -> [AudioStreamOption]
    func selectAudioStream(_ index: Int) async throws(AudioError)
    /// Releases every resource. The engine cannot be used afterwards.
    func shutdown() async
    /// The thread the engine's calls run on, if it has its own: callers that prefer it for their task
    /// reach the engine without a thread hop there and back (nil: no such thread).
    var callExecutor: (any TaskExecutor)? { get }
}

extension AudioEngine {
    public var callExecutor: (any TaskExecutor)? { nil }

    /// Outputs that name no streams ignore titles.
    public func setItemTitle(_ title: String?, for token: PlaybackToken) async {}

    /// Loads with no successor named yet.
    public func load(uri: String, token: PlaybackToken, startAt seconds: Double?) async throws(AudioError) {
        try await load(uri: uri, token: token, startAt: seconds, next: nil)
    }

    public func pauseAndSample() async throws(AudioError) -> PositionSample? {
        try await pause()
        return await positionSample()
    }

    /// Engines that cannot stamp their reading leave the moment to the caller.
    public func positionSample() async -> PositionSample? {
        await position().map { PositionSample(seconds: $0, sampledAt: nil) }
    }
}
