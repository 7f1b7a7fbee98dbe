import MediaJSON
import Playback

// MARK: - The published document

extension NowPlayingInfo {
    /// The `P/nowplaying` payload: topics.md's keys, the ones the item lacks omitted, and exactly
    /// `{"state":"stopped"}` when nothing is loaded.
    public var json: JSONValue {
        guard state != .stopped else { return ["state": "stopped"] }
        var document: [String: JSONValue] = [
            "state": .string(state.rawValue),
            "timestamp": .number(timestamp),
            "elapsedPlaybackTime": .number(elapsedPlaybackTime),
            "playbackRate": .number(playbackRate),
            "defaultPlaybackRate": .number(defaultPlaybackRate),
            "isLiveStream": .bool(isLiveStream),
            "mediaType": "audio",
            "repeatMode": .string(repeatMode.rawValue),
            "shuffleMode": .string(shuffleMode.rawValue),
        ]
        document["playbackDuration"] = playbackDuration.map(JSONValue.number)
        document["playbackQueueIndex"] = playbackQueueIndex.map(Self.integer)
        document["playbackQueueCount"] = playbackQueueCount.map(Self.integer)
        document["identifier"] = identifier.map(JSONValue.string)
        document["nowPlayingIdentifiers"] = nowPlayingIdentifiers.map { .array($0.map(JSONValue.string)) }
        document["artwork"] = artwork.map(\.json)
        document["loudness"] = loudness.map(JSONValue.number)
        document["sleepTimer"] = sleepTimer.map(\.json)
        document.merge(metadata.jsonMembers) { _, metadata in metadata }
        return .object(document)
    }

    static func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
}

extension NowPlayingInfo {
    /// `json`'s bytes, written key by key in the sorted order `jsonBytes` gives them: now playing is made
    /// on the way to most playback replies, where a dictionary per object and a sort of its keys were
    /// a third of marking the new state.
    public var jsonBytes: [UInt8] {
        guard state != .stopped else { return Array(#"{"state":"stopped"}"#.utf8) }
        var out = JSONByteWriter(capacity: 640)
        var first = true
        func key(_ name: StaticString) {
            out.raw(first ? "{" : ",")
            first = false
            out.raw("\"")
            out.raw(name)
            out.raw("\":")
        }
        func text(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            out.string(value)
        }
        func integer(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            out.number(value)
        }
        text("albumTitle", metadata.albumTitle)
        integer("albumTrackCount", metadata.albumTrackCount)
        integer("albumTrackNumber", metadata.albumTrackNumber)
        text("artist", metadata.artist)
        if let artwork {
            key("artwork")
            out.raw("{")
            if let height = artwork.height {
                out.raw("\"height\":")
                out.number(height)
                out.raw(",")
            }
            out.raw("\"mimeType\":")
            out.string(artwork.mimeType)
            out.raw(",\"topic\":")
            out.string(artwork.topic)
            if let width = artwork.width {
                out.raw(",\"width\":")
                out.number(width)
            }
            out.raw("}")
        }
        integer("chapterCount", metadata.chapterCount)
        integer("chapterNumber", metadata.chapterNumber)
        text("chapterTitle", metadata.chapterTitle)
        text("composer", metadata.composer)
        key("defaultPlaybackRate")
        out.number(defaultPlaybackRate)
        integer("discCount", metadata.discCount)
        integer("discNumber", metadata.discNumber)
        key("elapsedPlaybackTime")
        out.number(elapsedPlaybackTime)
        text("genre", metadata.genre)
        text("identifier", identifier)
        key("isLiveStream")
        out.bool(isLiveStream)
        if let loudness {
            key("loudness")
            out.number(loudness)
        }
        key("mediaType")
        out.raw("\"audio\"")
        if let nowPlayingIdentifiers {
            key("nowPlayingIdentifiers")
            out.raw("[")
            for (index, identifier) in nowPlayingIdentifiers.enumerated() {
                if index > 0 { out.raw(",") }
                out.string(identifier)
            }
            out.raw("]")
        }
        if let playbackDuration {
            key("playbackDuration")
            out.number(playbackDuration)
        }
        integer("playbackQueueCount", playbackQueueCount)
        integer("playbackQueueIndex", playbackQueueIndex)
        key("playbackRate")
        out.number(playbackRate)
        text("releaseDate", metadata.releaseDate)
        key("repeatMode")
        out.string(repeatMode.rawValue)
        key("shuffleMode")
        out.string(shuffleMode.rawValue)
        if let sleepTimer {
            key("sleepTimer")
            if let endsAt = sleepTimer.endsAt {
                out.raw("{\"endsAt\":")
                out.number(endsAt)
            } else {
                out.raw("{\"endOfItem\":true")
            }
            out.raw(",\"fadeOut\":")
            out.number(sleepTimer.fadeOut)
            out.raw("}")
        }
        key("state")
        out.string(state.rawValue)
        key("timestamp")
        out.number(timestamp)
        text("title", metadata.title)
        out.raw("}")
        return out.bytes
    }
}

extension SleepTimer {
    /// `{endsAt, fadeOut}`, or `{endOfItem: true, fadeOut}` for a timer set for the item's end.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["fadeOut": .number(fadeOut)]
        if let endsAt { members["endsAt"] = .number(endsAt) } else { members["endOfItem"] = true }
        return .object(members)
    }
}

extension NowPlayingArtwork {
    /// `{topic, mimeType, width, height}`, sizes omitted when unknown.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["topic": .string(topic), "mimeType": .string(mimeType)]
        members["width"] = width.map(NowPlayingInfo.integer)
        members["height"] = height.map(NowPlayingInfo.integer)
        return .object(members)
    }
}

extension NowPlayingMetadata {
    /// The descriptive members of the document, only those that are known.
    var jsonMembers: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        let texts: [(String, String?)] = [
            ("title", title), ("artist", artist), ("albumTitle", albumTitle), ("genre", genre),
            ("releaseDate", releaseDate), ("composer", composer), ("chapterTitle", chapterTitle),
        ]
        for (key, value) in texts { members[key] = value.map(JSONValue.string) }
        let numbers: [(String, Int?)] = [
            ("albumTrackNumber", albumTrackNumber), ("albumTrackCount", albumTrackCount),
            ("discNumber", discNumber), ("discCount", discCount), ("chapterNumber", chapterNumber),
            ("chapterCount", chapterCount),
        ]
        for (key, value) in numbers { members[key] = value.map(NowPlayingInfo.integer) }
        return members
    }
}
