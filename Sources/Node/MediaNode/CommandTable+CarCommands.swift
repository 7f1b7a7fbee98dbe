import MediaJSON
import RemoteCommands

// MARK: - What a car's media system adds (contract versions 1.1 and 1.2): volume, downloads, announcements

extension CommandTable {
    static let carCommands: [Entry] = [changeVolume, mute, download, announce]

    /// A level 0...1, or "up" / "down" by `volumeStep`; works with nothing loaded. `P/commands` shows the
    /// output level's own `volume`.
    static let changeVolume: Entry = RemoteCommand<VolumeRequest>(
        "changeVolume", fields: [.init("volume", .numberOr(["up", "down"]), required: true, schema: ["minimum": 0, "maximum": 1])],
        documentation: .init(
            payload: "`volume`: a number 0...1 (the listener's level), or `\"up\"` / `\"down\"` (one `volumeStep`; `up` at 1.0 and `down` at 0 succeed and stay); works with nothing loaded",
            summary: "Sets the listener's volume 0...1, or one volumeStep up or down; works with nothing loaded. Version 1.1."),
        parameters: { ["volumeStep": .number($0.volumeStep)] }
    ) { fields, _ in
        guard let value = fields.payload["volume"] else { throw CommandValidationError("missing field 'volume'") }
        switch value {
        case let .number(level) where level >= 0 && level <= 1: return .level(level)
        case let .number(level): throw CommandValidationError("'volume' must be within 0...1, got \(quote(level))")
        case .string("up"): return .up
        case .string("down"): return .down
        case let .string(other):
            throw CommandValidationError("'volume' must be a number within 0...1, \"up\" or \"down\", got \"\(other)\"")
        default:
            throw CommandValidationError("'volume' must be a number within 0...1, \"up\" or \"down\", got \(value.typeName)")
        }
    }.handled(by: \.volume, shown: { $0.shownParameters.volume }) { request, volume in await volume.change(request) }

    /// `isMuted`: the target state, never a toggle.
    static let mute: Entry = RemoteCommand<Bool>(
        "mute", fields: [.init("isMuted", .bool, required: true)],
        documentation: .init(
            payload: "`isMuted` (boolean): the target state, never a toggle; muted output is silent and the level is kept",
            summary: "Mutes or unmutes (the target state, never a toggle); the level is kept. Version 1.1.")
    ) { fields, _ in
        guard let muted = try fields.optionalBool("isMuted") else { throw CommandValidationError("missing field 'isMuted'") }
        return muted
    }.handled(by: \.volume, shown: { $0.shownParameters.mute }) { isMuted, volume in await volume.mute(isMuted) }

    /// Keeps local copies of an item, or of a container's downloadable children; `isNegative` deletes them.
    static let download: Entry = RemoteCommand<DownloadRequest>(
        "download", fields: [.identifier(required: true), .init("isNegative", .bool, schema: ["default": false])],
        documentation: .init(
            payload: "`identifier` (an item, or a container for its downloadable children), `isNegative` (boolean, default false; true deletes the local copies): success once queued (or deleted); `noSuchContent` for an unknown identifier; `commandFailed` for a local file, a live stream or a container with nothing downloadable",
            summary: "Keeps local copies of an item or a container's playable children for offline listening (isNegative deletes them). Version 1.1.")
    ) { fields, _ in
        let identifier = try fields.requiredString("identifier")
        guard !identifier.isEmpty else { throw CommandValidationError("'identifier' must not be empty") }
        return DownloadRequest(identifier: identifier, isNegative: try fields.optionalBool("isNegative") ?? false)
    }.handled(by: \.downloads) { request, downloads in await downloads.download(request) }

    /// A clip over the music: exactly one of `url`, `identifier` and `text`, or `cancel` alone (version 1.2).
    static let announce: Entry = RemoteCommand<AnnounceRequest>(
        "announce",
        fields: [
            .init("url", .string, schema: [
                "pattern": "^(file|https?)://",
                "description": "A local file or an http(s) URL of an audio file (downloaded whole first, at most 20 MiB and 30 s).",
            ]),
            .identifier(),
            .init("text", .string, schema: [
                "minLength": 1, "maxLength": .number(Double(Announcement.maximumTextLength)),
                "description": "Spoken offline by eSpeak NG (capability textToSpeech).",
            ]),
            .init("lang", .string, schema: ["pattern": "^[A-Za-z-]{1,16}$", "description": "With text, the voice's language, e.g. en, de."]),
            .choice("mode", Announcement.Mode.self, schema: ["default": "duck"]),
            .init("volume", .number, schema: [
                "minimum": 0, "maximum": 1,
                "description": "The announcement's level; default the listener's volume. Heard even while muted.",
            ]),
            .init("cancel", .bool, schema: ["const": true, "description": "Alone, stops the announcement playing and drops those waiting."]),
        ],
        documentation: .init(
            payload: "exactly one of `url` (`file://`, `http://` or `https://`), `identifier` (a playable item) or `text` (with optional `lang`, e.g. `\"en\"`, `\"de\"`); optional `mode` (`duck`, the default, or `pause`) and `volume` (0...1, default the listener's `volume`); or `cancel: true` alone. Success once accepted, with `data` `{\"announcementId\": \"...\"}` (see Announcements)",
            summary: "Plays a clip (a URL, a catalog item or spoken text) over the music, which ducks or pauses under it and comes back after the last one; or cancels them. Version 1.2.",
            atLeastOneOf: ["url", "identifier", "text", "cancel"],
            request: "Exactly one of url, identifier, text; or cancel alone. The reply's data: {\"announcementId\": \"...\"} (with cancel: {\"cancelled\": n})."),
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
    }.handled(by: \.announcer) { request, announcer in await announcer.answer(request) }
}
