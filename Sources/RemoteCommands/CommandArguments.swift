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

/// playItem names its item by identifier or by index path.
public enum ContentReference: Sendable, Equatable {
    case identifier(String)
    case indexPath([Int])
}

public enum InterruptRequest: Sendable, Equatable {
    /// A navigation prompt or a call begins; `duck` lowers the volume instead of pausing.
    case begin(duck: Bool)
    /// It ended; resume only if `shouldResume` and playback was running before.
    case end(shouldResume: Bool)
}

/// A command's payload, typed and validated once, centrally.
public enum CommandArguments: Sendable, Equatable {
    case none
    case skip(interval: Double?)
    case seek(SeekCommandType)
    case changePlaybackPosition(positionTime: Double, identifier: String?)
    case changePlaybackRate(PlaybackRateRequest)
    case changeRepeatMode(RepeatType)
    case changeShuffleMode(ShuffleType)
    case rating(Double)
    case feedback(isNegative: Bool)
    case languageOption(languageTag: String, type: LanguageOptionType)
    case playItem(ContentReference)
    case prepareQueue(identifiers: [String])
    case browse(indexPath: [Int], offset: Int?, limit: Int?)
    case contentItem(identifier: String)
    case search(query: String, limit: Int)
    case interrupt(InterruptRequest)
}

/// A request the payload rules refused; the message goes to the requester verbatim.
public struct CommandValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

// MARK: - The payload table

extension RemoteCommand {
    /// Reads this command's payload (already known to be a JSON object). Unknown extra fields are ignored.
    public func parseArguments(_ payload: [String: JSONValue]) throws(CommandValidationError) -> CommandArguments {
        let fields = PayloadFields(payload)
        switch self {
        case .play, .pause, .stop, .togglePlayPause, .nextTrack, .previousTrack:
            return .none
        case .skipForward, .skipBackward:
            let interval = try fields.optionalNumber("interval")
            if let interval {
                guard interval > 0 else { throw .init("'interval' must be greater than 0, got \(quote(interval))") }
                try checkSeconds(interval, "interval")
            }
            return .skip(interval: interval)
        case .seekForward, .seekBackward:
            return .seek(try fields.requiredEnum("type", SeekCommandType.self))
        case .changePlaybackPosition:
            let position = try fields.requiredNumber("positionTime")
            guard position >= 0 else { throw .init("'positionTime' must not be negative, got \(quote(position))") }
            try checkSeconds(position, "positionTime")
            return .changePlaybackPosition(positionTime: position, identifier: try fields.optionalString("identifier"))
        case .changePlaybackRate:
            guard let value = payload["playbackRate"] else { throw .init("missing field 'playbackRate'") }
            switch value {
            case let .number(rate) where rate > 0: return .changePlaybackRate(.rate(rate))
            case let .number(rate): throw .init("'playbackRate' must be greater than 0, got \(quote(rate))")
            case .string("next"): return .changePlaybackRate(.next)
            default: throw .init("'playbackRate' must be a number or \"next\", got \(value.typeName)")
            }
        case .changeRepeatMode:
            return .changeRepeatMode(try fields.requiredEnum("repeatType", RepeatType.self))
        case .changeShuffleMode:
            return .changeShuffleMode(try fields.requiredEnum("shuffleType", ShuffleType.self))
        case .rating:
            return .rating(try fields.requiredNumber("rating"))
        case .like, .dislike, .bookmark:
            return .feedback(isNegative: try fields.optionalBool("isNegative") ?? false)
        case .enableLanguageOption, .disableLanguageOption:
            let tag = try fields.requiredString("languageTag")
            guard !tag.isEmpty else { throw .init("'languageTag' must not be empty") }
            return .languageOption(languageTag: tag, type: try fields.requiredEnum("type", LanguageOptionType.self))
        case .playItem:
            // Both fields are checked even when the first is enough: a wrong type is never passed over.
            let identifier = try fields.optionalString("identifier")
            let path = try fields.optionalIndexPath("indexPath")
            if let identifier { return .playItem(.identifier(identifier)) }
            if let path { return .playItem(.indexPath(path)) }
            throw .init("playItem needs 'identifier' or 'indexPath'")
        case .prepareQueue:
            guard let value = payload["identifiers"] else { throw .init("missing field 'identifiers'") }
            guard let elements = value.arrayValue else {
                throw .init("'identifiers' must be an array of strings, got \(value.typeName)")
            }
            let identifiers = elements.compactMap(\.stringValue)
            guard identifiers.count == elements.count else { throw .init("'identifiers' must be an array of strings") }
            return .prepareQueue(identifiers: identifiers)
        case .browse:
            let path = try fields.optionalIndexPath("indexPath") ?? []
            let offset = try fields.optionalCount("offset")
            let limit = try fields.optionalCount("limit")
            return .browse(indexPath: path, offset: offset, limit: limit)
        case .contentItem:
            return .contentItem(identifier: try fields.requiredString("identifier"))
        case .search:
            let query = try fields.requiredString("query")
            let limit = try fields.optionalCount("limit") ?? 20
            guard !query.allSatisfy(\.isWhitespace) else { throw .init("'query' must not be empty") }
            guard query.count <= 200 else { throw .init("'query' must be at most 200 characters, got \(query.count)") }
            return .search(query: query, limit: limit)
        case .interrupt:
            // Each field is type-checked whatever `type` says: `shouldResume: "yes"` on a begin is still wrong.
            let type = try fields.requiredString("type")
            let duck = try fields.optionalBool("duck") ?? false
            let shouldResume = try fields.optionalBool("shouldResume") ?? false
            switch type {
            case "begin": return .interrupt(.begin(duck: duck))
            case "end": return .interrupt(.end(shouldResume: shouldResume))
            case let other: throw .init("'type' must be \"begin\" or \"end\", got \"\(other)\"")
            }
        }
    }
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
struct PayloadFields {
    let payload: [String: JSONValue]
    init(_ payload: [String: JSONValue]) { self.payload = payload }

    func optionalNumber(_ key: String) throws(CommandValidationError) -> Double? {
        guard let value = payload[key], value != .null else { return nil }
        guard let number = value.numberValue else { throw .init("'\(key)' must be a number, got \(value.typeName)") }
        return number
    }

    func requiredNumber(_ key: String) throws(CommandValidationError) -> Double {
        guard let number = try optionalNumber(key) else { throw .init("missing field '\(key)'") }
        return number
    }

    func optionalString(_ key: String) throws(CommandValidationError) -> String? {
        guard let value = payload[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw .init("'\(key)' must be a string, got \(value.typeName)") }
        return text
    }

    func requiredString(_ key: String) throws(CommandValidationError) -> String {
        guard let text = try optionalString(key) else { throw .init("missing field '\(key)'") }
        return text
    }

    func optionalBool(_ key: String) throws(CommandValidationError) -> Bool? {
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

    func optionalCount(_ key: String) throws(CommandValidationError) -> Int? {
        guard let number = try optionalNumber(key) else { return nil }
        guard number >= 0, number == number.rounded(), number < 1e9 else {
            throw .init("'\(key)' must be a whole number from 0 to 999999999, got \(quote(number))")
        }
        return Int(number)
    }

    func optionalIndexPath(_ key: String) throws(CommandValidationError) -> [Int]? {
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
