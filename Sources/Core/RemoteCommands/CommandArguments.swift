import MediaJSON
/// seekForward / seekBackward carry the start or the end of a held button (S7).
public enum SeekCommandType: String, Sendable, CaseIterable {
    case beginSeeking, endSeeking
}

/// The target repeat state (S10: never a toggle).
public enum RepeatType: String, Sendable, CaseIterable {
    case off, one, all
}

/// The target shuffle state (S10: never a toggle).
public enum ShuffleType: String, Sendable, CaseIterable {
    case off, items, collections
}

public enum LanguageOptionType: String, Sendable, CaseIterable {
    case audible, legible
}

/// changePlaybackRate takes an explicit rate or steps to the next head-unit rate (S16).
public enum PlaybackRateRequest: Sendable, Equatable {
    case rate(Double)
    case next
}

/// playItem names its item by identifier or by index path, or its audio by URL.
public enum ContentReference: Sendable, Equatable {
    case identifier(String)
    case indexPath([Int])
    /// A `file://`, `http://` or `https://` URL: the catalog's item there, else the URL itself (MPRIS's OpenUri).
    case url(String)
}

public enum InterruptRequest: Sendable, Equatable {
    /// A navigation prompt or a call begins; `duck` lowers the volume instead of pausing.
    case begin(duck: Bool)
    /// It ended; resume only if `shouldResume` and playback was running before.
    case end(shouldResume: Bool)
}

/// changeVolume's payload: a level, or one step up or down.
public enum VolumeRequest: Sendable, Equatable {
    case level(Double)
    case up, down
}

/// search's payload: words to look for in the local catalog, and how many results to return.
public struct SearchRequest: Sendable, Equatable {
    public var query: String
    public var limit: Int
    public init(query: String, limit: Int = 20) {
        self.query = query
        self.limit = limit
    }
}

/// addToQueue's payload: playable items or containers (their playable children), and where they go.
/// `download`: the item or container whose local copies to keep, or with `isNegative` to delete.
public struct DownloadRequest: Sendable, Equatable {
    public var identifier: String
    public var isNegative: Bool
    public init(identifier: String, isNegative: Bool = false) {
        self.identifier = identifier
        self.isNegative = isNegative
    }
}

public struct QueueAddRequest: Sendable, Equatable {
    public enum Position: String, Sendable, CaseIterable {
        /// Right after the current item.
        case next
        /// After the last entry (the default).
        case end
    }

    public var identifiers: [String]
    public var position: Position
    public init(identifiers: [String], position: Position = .end) {
        self.identifiers = identifiers
        self.position = position
    }
}

/// moveQueueItem's payload: 0-based entries of the play order.
public struct QueueMoveRequest: Sendable, Equatable {
    public var from: Int
    public var to: Int
    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}

/// changePlaybackPosition's payload (S6).
public struct PositionRequest: Sendable, Equatable {
    public var positionTime: Double
    /// The item the position is meant for; a seek for another item is refused.
    public var identifier: String?
    public init(positionTime: Double, identifier: String? = nil) {
        self.positionTime = positionTime
        self.identifier = identifier
    }
}

/// enableLanguageOption / disableLanguageOption's payload.
public struct LanguageOptionRequest: Sendable, Equatable {
    public var languageTag: String
    public var type: LanguageOptionType
    public init(languageTag: String, type: LanguageOptionType) {
        self.languageTag = languageTag
        self.type = type
    }
}

/// browse's payload: a node of the tree and, for a container, a page of its children.
public struct BrowseRequest: Sendable, Equatable {
    public var indexPath: [Int]
    public var offset: Int?
    public var limit: Int?
    public init(indexPath: [Int], offset: Int? = nil, limit: Int? = nil) {
        self.indexPath = indexPath
        self.offset = offset
        self.limit = limit
    }
}

/// A request the payload rules refused; the message goes to the requester verbatim.
public struct CommandValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The longest time a request may name, in seconds (about 31 years): far past any item, and small enough
/// that every later conversion (GStreamer's nanoseconds in an Int64) holds it.
let maximumRequestSeconds = 1e9

/// A requester's number as JSON writes it, for refusal messages; never traps.
func quote(_ value: Double) -> String { JSONValue.numberText(value) }

func checkSeconds(_ value: Double, _ key: String) throws(CommandValidationError) {
    guard value <= maximumRequestSeconds else {
        throw .init("'\(key)' must be at most \(quote(maximumRequestSeconds)) seconds, got \(quote(value))")
    }
}

/// Typed access to payload fields with messages that name the field and what was wrong.
public struct PayloadFields: Sendable {
    public let payload: [String: JSONValue]
    public init(_ payload: [String: JSONValue]) { self.payload = payload }

    public func optionalNumber(_ key: String) throws(CommandValidationError) -> Double? {
        guard let value = payload[key], value != .null else { return nil }
        guard let number = value.numberValue else { throw .init("'\(key)' must be a number, got \(value.typeName)") }
        return number
    }

    public func requiredNumber(_ key: String) throws(CommandValidationError) -> Double {
        guard let number = try optionalNumber(key) else { throw .init("missing field '\(key)'") }
        return number
    }

    public func optionalString(_ key: String) throws(CommandValidationError) -> String? {
        guard let value = payload[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw .init("'\(key)' must be a string, got \(value.typeName)") }
        return text
    }

    public func requiredString(_ key: String) throws(CommandValidationError) -> String {
        guard let text = try optionalString(key) else { throw .init("missing field '\(key)'") }
        return text
    }

    public func optionalBool(_ key: String) throws(CommandValidationError) -> Bool? {
        guard let value = payload[key], value != .null else { return nil }
        guard let flag = value.boolValue else { throw .init("'\(key)' must be a boolean, got \(value.typeName)") }
        return flag
    }

    func requiredEnum<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type) throws(CommandValidationError) -> E
    where E.RawValue == String {
        let text = try requiredString(key)
        guard let value = E(rawValue: text) else {
            let allowed = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .init("'\(key)' must be one of \(allowed), got \"\(text)\"")
        }
        return value
    }

    public func optionalCount(_ key: String) throws(CommandValidationError) -> Int? {
        guard let number = try optionalNumber(key) else { return nil }
        guard number >= 0, number == number.rounded(), number < 1e9 else {
            throw .init("'\(key)' must be a whole number from 0 to 999999999, got \(quote(number))")
        }
        return Int(number)
    }

    /// A whole number from 0 that must be there.
    public func requiredCount(_ key: String) throws(CommandValidationError) -> Int {
        guard let count = try optionalCount(key) else { throw .init("missing field '\(key)'") }
        return count
    }

    /// A non-empty array of strings.
    public func requiredStrings(_ key: String) throws(CommandValidationError) -> [String] {
        guard let value = payload[key] else { throw .init("missing field '\(key)'") }
        guard let elements = value.arrayValue else {
            throw .init("'\(key)' must be an array of strings, got \(value.typeName)")
        }
        let strings = elements.compactMap(\.stringValue)
        guard strings.count == elements.count else { throw .init("'\(key)' must be an array of strings") }
        return strings
    }

    public func optionalIndexPath(_ key: String) throws(CommandValidationError) -> [Int]? {
        guard let value = payload[key], value != .null else { return nil }
        guard let elements = value.arrayValue else {
            throw .init("'\(key)' must be an array of whole numbers, got \(value.typeName)")
        }
        var path: [Int] = []
        for element in elements {
            guard let number = element.numberValue, number >= 0, number == number.rounded(), number < 1e9 else {
                throw .init("'\(key)' must be an array of whole numbers of at least 0")
            }
            path.append(Int(number))
        }
        return path
    }
}

/// announce's payload: a clip to play over the music, or `cancel`.
public enum AnnounceRequest: Sendable, Equatable {
    case announce(Announcement)
    /// Stops the announcement playing and drops those waiting.
    case cancel
}

/// One announcement as the command asked for it.
public struct Announcement: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// A `file://` path or an `http(s)://` URL.
        case url(String)
        /// A playable item of the catalog.
        case identifier(String)
        /// Spoken by the node's text-to-speech; `language` is a voice such as "en" or "de".
        case text(String, language: String?)
    }

    /// What the music does under it.
    public enum Mode: String, Sendable, CaseIterable {
        case duck, pause
    }

    public var source: Source
    public var mode: Mode
    /// 0...1, the announcement's level; nil: the listener's volume.
    public var volume: Double?

    public init(source: Source, mode: Mode = .duck, volume: Double? = nil) {
        self.source = source
        self.mode = mode
        self.volume = volume
    }

    /// Longest text spoken, in characters: a minute or so of speech.
    public static let maximumTextLength = 1_000
    /// Announcements waiting besides the one playing.
    public static let maximumWaiting = 10
}
