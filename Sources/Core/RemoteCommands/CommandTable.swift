import MediaJSON

// MARK: - The command table

/// Every command of the contract, in the order `P/commands` lists them: the seed's transport, position,
/// rate, feedback and language commands (S1), the playable-content commands, search and `interrupt`, then
/// version 1.1's volume, queue editing and downloads, version 1.2's announcements and 1.3's chapters. A
/// command is one definition (below, and in CommandTable+CarCommands.swift for versions 1.1 to 1.3: its name,
/// lane, availability, payload fields, parameters and decoding) and one entry here; the node binds its handler to
/// the definition, and the compiler checks the handler's types. The fuzz test's generator, the command
/// center's starting parameters and the check against asyncapi.yaml all read the entries.
public enum CommandTable {
    public static let all: [any AnyRemoteCommand] = [
        PlainCommand.play, PlainCommand.pause, PlainCommand.stop, PlainCommand.togglePlayPause,
        PlainCommand.nextTrack, PlainCommand.previousTrack,
        RemoteCommand.skipForward, RemoteCommand.skipBackward, RemoteCommand.seekForward, RemoteCommand.seekBackward,
        RemoteCommand.changePlaybackPosition, RemoteCommand.changePlaybackRate, RemoteCommand.changeRepeatMode,
        RemoteCommand.changeShuffleMode,
        RemoteCommand.rating, RemoteCommand.like, RemoteCommand.dislike, RemoteCommand.bookmark,
        RemoteCommand.enableLanguageOption, RemoteCommand.disableLanguageOption,
        RemoteCommand.playItem, RemoteCommand.prepareQueue, RemoteCommand.browse, RemoteCommand.contentItem,
        RemoteCommand.search, RemoteCommand.interrupt,
        RemoteCommand.changeVolume, RemoteCommand.mute,
        RemoteCommand.addToQueue, RemoteCommand.removeFromQueue, RemoteCommand.moveQueueItem,
        RemoteCommand.download,
        RemoteCommand.announce,
        RemoteCommand.skipToChapter,
    ]

    public static let names: [String] = all.map(\.name)

    public static func command(named name: String) -> (any AnyRemoteCommand)? {
        byName[name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

// MARK: - Transport (S5, S8, S9)

extension RemoteCommand where Arguments == Void {
    public static var play: Self { .init("play", availability: .always) { _, _ in } }
    public static var pause: Self { .init("pause") { _, _ in } }
    public static var stop: Self { .init("stop") { _, _ in } }
    public static var togglePlayPause: Self { .init("togglePlayPause") { _, _ in } }
    public static var nextTrack: Self { .init("nextTrack") { _, _ in } }
    public static var previousTrack: Self { .init("previousTrack") { _, _ in } }
}

// MARK: - Position (S6, S7, S14)

extension RemoteCommand where Arguments == Double? {
    /// The interval in seconds; nil: the first preferred interval.
    public static var skipForward: Self { skip("skipForward") }
    public static var skipBackward: Self { skip("skipBackward") }

    private static func skip(_ name: String) -> Self {
        .init(name, availability: .withSeekableItem, fields: [.init("interval", .number)],
              parameters: { ["preferredIntervals": .array($0.preferredIntervals.map(JSONValue.number))] }) { fields, _ in
            let interval = try fields.optionalNumber("interval")
            if let interval {
                guard interval > 0 else { throw CommandValidationError("'interval' must be greater than 0, got \(quote(interval))") }
                try checkSeconds(interval, "interval")
            }
            return interval
        }
    }
}

extension RemoteCommand where Arguments == SeekCommandType {
    public static var seekForward: Self { seek("seekForward") }
    public static var seekBackward: Self { seek("seekBackward") }

    private static func seek(_ name: String) -> Self {
        .init(name, availability: .withSeekableItem, fields: [.choice("type", SeekCommandType.self)]) { fields, _ in
            try fields.requiredEnum("type", SeekCommandType.self)
        }
    }
}

extension RemoteCommand where Arguments == PositionRequest {
    public static var changePlaybackPosition: Self {
        .init(
            "changePlaybackPosition", availability: .withSeekableItem,
            fields: [.init("positionTime", .number), .init("identifier", .string)]
        ) { fields, _ in
            let position = try fields.requiredNumber("positionTime")
            guard position >= 0 else { throw CommandValidationError("'positionTime' must not be negative, got \(quote(position))") }
            try checkSeconds(position, "positionTime")
            return PositionRequest(positionTime: position, identifier: try fields.optionalString("identifier"))
        }
    }
}

// MARK: - Rate, repeat and shuffle (S10, S16, S17)

extension RemoteCommand where Arguments == PlaybackRateRequest {
    public static var changePlaybackRate: Self {
        .init(
            "changePlaybackRate", availability: .withItemAtHeadUnitRate, fields: [.init("playbackRate", .numberOr(["next"]))],
            parameters: {
                [
                    "supportedPlaybackRates": .array($0.supportedPlaybackRates.map(JSONValue.number)),
                    "playerPlaybackRates": .array($0.playerPlaybackRates.map(JSONValue.number)),
                ]
            },
            // S17: hidden from head units while the rate is outside their set, yet explicit player rates still work.
            gate: { request, state, capabilities in
                guard request == .next, !capabilities.isSupportedByHeadUnit(state.currentPlaybackRate) else { return nil }
                return "changePlaybackRate \"next\" is disabled while the rate (\(state.currentPlaybackRate)) is outside "
                    + "supportedPlaybackRates; send an explicit rate from playerPlaybackRates"
            }
        ) { fields, capabilities in
            guard let value = fields.payload["playbackRate"] else { throw CommandValidationError("missing field 'playbackRate'") }
            switch value {
            case let .number(rate) where rate > 0:
                guard capabilities.isAcceptedByPlayer(rate) else {
                    let rates = capabilities.playerPlaybackRates.map(quote).joined(separator: ", ")
                    throw CommandValidationError("playbackRate \(quote(rate)) is not one of the player's rates [\(rates)]")
                }
                return .rate(rate)
            case let .number(rate): throw CommandValidationError("'playbackRate' must be greater than 0, got \(quote(rate))")
            case .string("next"): return .next
            default: throw CommandValidationError("'playbackRate' must be a number or \"next\", got \(value.typeName)")
            }
        }
    }
}

extension RemoteCommand where Arguments == RepeatType {
    /// The target repeat state, never a toggle (S10).
    public static var changeRepeatMode: Self {
        .init(
            "changeRepeatMode", fields: [.choice("repeatType", RepeatType.self)],
            initialParameters: ["currentRepeatType": .string(RepeatType.off.rawValue)]
        ) { fields, _ in try fields.requiredEnum("repeatType", RepeatType.self) }
    }
}

extension RemoteCommand where Arguments == ShuffleType {
    /// The target shuffle state, never a toggle (S10).
    public static var changeShuffleMode: Self {
        .init(
            "changeShuffleMode", fields: [.choice("shuffleType", ShuffleType.self)],
            initialParameters: ["currentShuffleType": .string(ShuffleType.off.rawValue)]
        ) { fields, _ in try fields.requiredEnum("shuffleType", ShuffleType.self) }
    }
}

// MARK: - Feedback (S7)

extension RemoteCommand where Arguments == Double {
    public static var rating: Self {
        .init("rating", fields: [.init("rating", .number)], parameters: {
            ["minimumRating": .number($0.minimumRating), "maximumRating": .number($0.maximumRating)]
        }) { fields, capabilities in
            let value = try fields.requiredNumber("rating")
            guard value >= capabilities.minimumRating, value <= capabilities.maximumRating else {
                throw CommandValidationError("'rating' must be within \(quote(capabilities.minimumRating))..."
                    + "\(quote(capabilities.maximumRating)), got \(quote(value))")
            }
            return value
        }
    }
}

extension RemoteCommand where Arguments == Bool {
    /// `isNegative`: true takes the mark back.
    public static var like: Self { feedback("like") }
    public static var dislike: Self { feedback("dislike") }
    public static var bookmark: Self { feedback("bookmark") }

    private static func feedback(_ name: String) -> Self {
        .init(name, fields: [.init("isNegative", .bool)], initialParameters: ["isActive": false], parameters: { capabilities in
            capabilities.feedbackTitles[name].map {
                ["localizedTitle": .string($0.title), "localizedShortTitle": .string($0.shortTitle)]
            } ?? [:]
        }) { fields, _ in try fields.optionalBool("isNegative") ?? false }
    }
}

// MARK: - Language options

extension RemoteCommand where Arguments == LanguageOptionRequest {
    public static var enableLanguageOption: Self { languageOption("enableLanguageOption") }
    public static var disableLanguageOption: Self { languageOption("disableLanguageOption") }

    private static func languageOption(_ name: String) -> Self {
        .init(name, fields: [.init("languageTag", .string), .choice("type", LanguageOptionType.self)]) { fields, _ in
            let tag = try fields.requiredString("languageTag")
            guard !tag.isEmpty else { throw CommandValidationError("'languageTag' must not be empty") }
            return LanguageOptionRequest(languageTag: tag, type: try fields.requiredEnum("type", LanguageOptionType.self))
        }
    }
}

// MARK: - Playable content (S20-S32)

extension RemoteCommand where Arguments == ContentReference {
    public static var playItem: Self {
        .init("playItem", fields: [.init("identifier", .string), .init("indexPath", .indexPath), .init("url", .string)]) { fields, _ in
            // Every field is checked even when the first is enough: a wrong type is never passed over.
            let identifier = try fields.optionalString("identifier")
            let path = try fields.optionalIndexPath("indexPath")
            let url = try fields.optionalString("url")
            if let identifier { return .identifier(identifier) }
            if let path { return .indexPath(path) }
            if let url {
                let scheme = url.prefix { $0 != ":" }.lowercased()
                guard ["file", "http", "https"].contains(scheme), url.count > scheme.count + 3, url.count <= 4096 else {
                    throw CommandValidationError("'url' must be a file://, http:// or https:// URL of at most 4096 characters")
                }
                return .url(url)
            }
            throw CommandValidationError("playItem needs 'identifier', 'indexPath' or 'url'")
        }
    }
}

extension RemoteCommand where Arguments == [String] {
    public static var prepareQueue: Self {
        .init("prepareQueue", fields: [.init("identifiers", .strings)]) { fields, _ in try fields.requiredStrings("identifiers") }
    }
}

extension RemoteCommand where Arguments == BrowseRequest {
    public static var browse: Self {
        .init(
            "browse", lane: .content,
            fields: [.init("indexPath", .indexPath), .init("offset", .number), .init("limit", .number)]
        ) { fields, _ in
            BrowseRequest(indexPath: try fields.optionalIndexPath("indexPath") ?? [],
                          offset: try fields.optionalCount("offset"), limit: try fields.optionalCount("limit"))
        }
    }
}

extension RemoteCommand where Arguments == String {
    /// The item's identifier.
    public static var contentItem: Self {
        .init("contentItem", lane: .content, fields: [.init("identifier", .string)]) { fields, _ in try fields.requiredString("identifier") }
    }
}

extension RemoteCommand where Arguments == SearchRequest {
    /// Answers from the local catalog only, so it works with no network (version 1.1).
    public static var search: Self {
        .init("search", lane: .content, fields: [.init("query", .string), .init("limit", .number)]) { fields, _ in
            let query = try fields.requiredString("query")
            let limit = try fields.optionalCount("limit") ?? 20
            guard !query.allSatisfy(\.isWhitespace) else { throw CommandValidationError("'query' must not be empty") }
            guard query.count <= 200 else {
                throw CommandValidationError("'query' must be at most 200 characters, got \(query.count)")
            }
            return SearchRequest(query: query, limit: limit)
        }
    }
}

// MARK: - Interruptions

extension RemoteCommand where Arguments == InterruptRequest {
    public static var interrupt: Self {
        .init(
            "interrupt",
            fields: [.init("type", .choice(["begin", "end"])), .init("duck", .bool), .init("shouldResume", .bool)]
        ) { fields, _ in
            // Each field is type-checked whatever `type` says: `shouldResume: "yes"` on a begin is still wrong.
            let type = try fields.requiredString("type")
            let duck = try fields.optionalBool("duck") ?? false
            let shouldResume = try fields.optionalBool("shouldResume") ?? false
            switch type {
            case "begin": return .begin(duck: duck)
            case "end": return .end(shouldResume: shouldResume)
            case let other: throw CommandValidationError("'type' must be \"begin\" or \"end\", got \"\(other)\"")
            }
        }
    }
}
