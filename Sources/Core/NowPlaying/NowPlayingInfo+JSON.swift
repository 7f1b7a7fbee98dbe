import MediaJSON

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
        document.merge(metadata.jsonMembers) { _, metadata in metadata }
        return .object(document)
    }

    static func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
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
