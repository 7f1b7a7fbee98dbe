import MediaJSON

// The commands a car's media system adds to the seed's (contract versions 1.1 to 1.3): volume, queue
// editing, downloads, announcements and chapters. Their entries are in `CommandTable.all` with the others.

// MARK: - Volume (version 1.1)

extension RemoteCommand where Arguments == VolumeRequest {
    /// A level 0...1, or "up" / "down" by `volumeStep`; works with nothing loaded.
    public static var changeVolume: Self {
        .init("changeVolume", fields: [.init("volume", .numberOr(["up", "down"]))], parameters: { ["volumeStep": .number($0.volumeStep)] }) { fields, _ in
            guard let value = fields.payload["volume"] else { throw CommandValidationError("missing field 'volume'") }
            switch value {
            case let .number(level) where level >= 0 && level <= 1: return .level(level)
            case let .number(level):
                throw CommandValidationError("'volume' must be within 0...1, got \(quote(level))")
            case .string("up"): return .up
            case .string("down"): return .down
            case let .string(other):
                throw CommandValidationError("'volume' must be a number within 0...1, \"up\" or \"down\", got \"\(other)\"")
            default:
                throw CommandValidationError("'volume' must be a number within 0...1, \"up\" or \"down\", got \(value.typeName)")
            }
        }
    }
}

extension RemoteCommand where Arguments == Bool {
    /// `isMuted`: the target state, never a toggle.
    public static var mute: Self {
        .init("mute", fields: [.init("isMuted", .bool)]) { fields, _ in
            guard let muted = try fields.optionalBool("isMuted") else { throw CommandValidationError("missing field 'isMuted'") }
            return muted
        }
    }
}

// MARK: - Queue editing (version 1.1)

extension RemoteCommand where Arguments == QueueAddRequest {
    public static var addToQueue: Self {
        .init("addToQueue", fields: [.init("identifiers", .strings), .choice("position", QueueAddRequest.Position.self)]) { fields, _ in
            let identifiers = try fields.requiredStrings("identifiers")
            guard !identifiers.isEmpty else { throw CommandValidationError("'identifiers' is empty") }
            let position = try fields.optionalString("position").map { _ in
                try fields.requiredEnum("position", QueueAddRequest.Position.self)
            }
            return QueueAddRequest(identifiers: identifiers, position: position ?? .end)
        }
    }
}

extension RemoteCommand where Arguments == Int {
    /// The 0-based entry of the play order to remove.
    public static var removeFromQueue: Self {
        .init("removeFromQueue", fields: [.init("index", .number)]) { fields, _ in try fields.requiredCount("index") }
    }
}

extension RemoteCommand where Arguments == QueueMoveRequest {
    public static var moveQueueItem: Self {
        .init("moveQueueItem", fields: [.init("from", .number), .init("to", .number)]) { fields, _ in
            QueueMoveRequest(from: try fields.requiredCount("from"), to: try fields.requiredCount("to"))
        }
    }
}

// MARK: - Downloads (version 1.1)

extension RemoteCommand where Arguments == DownloadRequest {
    /// Keeps local copies of an item, or of a container's downloadable children; `isNegative` deletes them.
    public static var download: Self {
        .init("download", fields: [.init("identifier", .string), .init("isNegative", .bool)]) { fields, _ in
            let identifier = try fields.requiredString("identifier")
            guard !identifier.isEmpty else { throw CommandValidationError("'identifier' must not be empty") }
            return DownloadRequest(identifier: identifier, isNegative: try fields.optionalBool("isNegative") ?? false)
        }
    }
}

// MARK: - Announcements (version 1.2)

extension RemoteCommand where Arguments == AnnounceRequest {
    /// A clip over the music: exactly one of `url`, `identifier` and `text`, or `cancel` alone.
    public static var announce: Self {
        .init(
            "announce",
            fields: [
                .init("url", .string), .init("identifier", .string), .init("text", .string), .init("lang", .string),
                .choice("mode", Announcement.Mode.self), .init("volume", .number), .init("cancel", .bool),
            ],
            parameters: { ["textToSpeech": .bool($0.textToSpeech), "maxWaiting": .number(Double(Announcement.maximumWaiting))] }
        ) { fields, _ in
            // Every field is checked whatever the others say, as for every command.
            let url = try fields.optionalString("url")
            let identifier = try fields.optionalString("identifier")
            let text = try fields.optionalString("text")
            let language = try fields.optionalString("lang")
            let mode = try fields.optionalString("mode")
            let volume = try fields.optionalNumber("volume")
            let cancel = try fields.optionalBool("cancel")
            if let cancel {
                guard cancel else { throw CommandValidationError("'cancel' can only be true") }
                let others = ["url", "identifier", "text", "lang", "mode", "volume"].filter { fields.payload[$0] != nil }
                guard others.isEmpty else {
                    throw CommandValidationError("'cancel' comes alone, without \(others.map { "'\($0)'" }.joined(separator: ", "))")
                }
                return .cancel
            }
            let sources = [url.map { _ in "url" }, identifier.map { _ in "identifier" }, text.map { _ in "text" }].compactMap { $0 }
            guard sources.count == 1 else {
                throw CommandValidationError(sources.isEmpty
                    ? "missing field: one of 'url', 'identifier' or 'text'"
                    : "exactly one of 'url', 'identifier' or 'text', got \(sources.map { "'\($0)'" }.joined(separator: " and "))")
            }
            guard language == nil || text != nil else { throw CommandValidationError("'lang' goes with 'text' only") }
            let source: Announcement.Source
            if let url {
                guard url.hasPrefix("file://") || url.hasPrefix("http://") || url.hasPrefix("https://") else {
                    throw CommandValidationError("'url' must be a file://, http:// or https:// URL, got \"\(url.prefix(80))\"")
                }
                source = .url(url)
            } else if let identifier {
                guard !identifier.isEmpty else { throw CommandValidationError("'identifier' must not be empty") }
                source = .identifier(identifier)
            } else {
                let text = text ?? ""
                guard !text.allSatisfy(\.isWhitespace) else { throw CommandValidationError("'text' must not be empty") }
                guard text.count <= Announcement.maximumTextLength else {
                    throw CommandValidationError(
                        "'text' must be at most \(Announcement.maximumTextLength) characters, got \(text.count)")
                }
                if let language {
                    // A voice name as eSpeak NG knows them: "en", "de", "en-us", "pt-br".
                    let valid = !language.isEmpty && language.count <= 16
                        && language.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "-" }
                    guard valid else { throw CommandValidationError("'lang' must be a language such as \"en\" or \"de\", got \"\(language.prefix(40))\"") }
                }
                source = .text(text, language: language)
            }
            var announcement = Announcement(source: source)
            if let mode {
                guard let chosen = Announcement.Mode(rawValue: mode) else {
                    throw CommandValidationError("'mode' must be \"duck\" or \"pause\", got \"\(mode.prefix(40))\"")
                }
                announcement.mode = chosen
            }
            if let volume {
                guard volume >= 0, volume <= 1 else { throw CommandValidationError("'volume' must be within 0...1, got \(quote(volume))") }
                announcement.volume = volume
            }
            return .announce(announcement)
        }
    }
}

// MARK: - Chapters (version 1.3)

extension RemoteCommand where Arguments == Int {
    /// Plays the current item from the start of chapter `chapterNumber` (counting from 0, as now playing does).
    public static var skipToChapter: Self {
        .init("skipToChapter", availability: .withChapters, fields: [.init("chapterNumber", .number)]) { fields, _ in
            try fields.requiredCount("chapterNumber")
        }
    }
}
