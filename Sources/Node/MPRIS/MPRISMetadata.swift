import DBusBinding
import MediaJSON

/// How now playing's keys show in MPRIS's `Metadata`: the one list, which a test walks against every key
/// `P/nowplaying` can carry, so a new key is either shown here or said here not to be.
public enum MPRISMetadata {
    public enum Entry: Sendable {
        /// Shown under this MPRIS key, converted; nil leaves it out (a value of the wrong type).
        case shown(String, @Sendable (JSONValue) -> DBusValue?)
        /// Shown by another member, or not at all, and why.
        case elsewhere(String)
    }

    public static let keys: [String: Entry] = [
        "title": .shown("xesam:title", text),
        "artist": .shown("xesam:artist", texts),
        "albumTitle": .shown("xesam:album", text),
        "genre": .shown("xesam:genre", texts),
        "composer": .shown("xesam:composer", texts),
        "releaseDate": .shown("xesam:contentCreated", text),
        "albumTrackNumber": .shown("xesam:trackNumber", integer),
        "discNumber": .shown("xesam:discNumber", integer),
        "playbackDuration": .shown("mpris:length") { $0.numberValue.map { .int64(MPRISTime.microseconds($0)) } },
        "identifier": .shown("medianode:identifier", text),
        "artwork": .elsewhere("mpris:artUrl, a file:// of the picture the artwork topic carries"),
        "state": .elsewhere("PlaybackStatus"),
        "timestamp": .elsewhere("Position, read when asked"),
        "elapsedPlaybackTime": .elsewhere("Position, read when asked"),
        "playbackRate": .elsewhere("Rate (the listener's) and Position"),
        "defaultPlaybackRate": .elsewhere("no MPRIS member"),
        "repeatMode": .elsewhere("LoopStatus"),
        "shuffleMode": .elsewhere("Shuffle"),
        "playbackQueueIndex": .elsewhere("mpris:trackid and TrackList's Tracks"),
        "playbackQueueCount": .elsewhere("TrackList's Tracks"),
        "nowPlayingIdentifiers": .elsewhere("the tree path; no MPRIS key"),
        "isLiveStream": .elsewhere("no MPRIS key; CanSeek is false while it plays"),
        "mediaType": .elsewhere("always audio"),
        "loudness": .elsewhere("no MPRIS key"),
        "albumTrackCount": .elsewhere("no xesam key"),
        "discCount": .elsewhere("no xesam key"),
        "chapterNumber": .elsewhere("no xesam key"),
        "chapterCount": .elsewhere("no xesam key"),
        "chapterTitle": .elsewhere("no xesam key"),
    ]

    /// The Player's `Metadata`: empty while stopped.
    static func current(_ inputs: MPRISInputs) -> [String: DBusValue] {
        guard inputs.nowPlaying["state"]?.stringValue != "stopped", inputs.nowPlaying["identifier"] != nil else { return [:] }
        return metadata(of: inputs.nowPlaying, trackID: inputs.currentTrackID, url: inputs.playback?.item?.uri,
                        artURL: inputs.artURL)
    }

    /// The metadata of a now-playing document (the current item's, or one made for a queue entry).
    public static func metadata(of document: JSONValue, trackID: String, url: String?, artURL: String?) -> [String: DBusValue] {
        var metadata: [String: DBusValue] = ["mpris:trackid": .objectPath(trackID)]
        for (key, value) in document.objectValue ?? [:] {
            guard case let .shown(name, convert)? = keys[key], let converted = convert(value) else { continue }
            metadata[name] = converted
        }
        if let url { metadata["xesam:url"] = .string(locationURL(url)) }
        if let artURL { metadata["mpris:artUrl"] = .string(artURL) }
        return metadata
    }

    /// A queue item's location as a URL: a plain path becomes `file://`.
    static func locationURL(_ location: String) -> String {
        guard location.hasPrefix("/") else { return location }
        return "file://" + (location.addingPercentEncodingForPath ?? location)
    }

    private static let text: @Sendable (JSONValue) -> DBusValue? = { $0.stringValue.map(DBusValue.string) }
    private static let texts: @Sendable (JSONValue) -> DBusValue? = { $0.stringValue.map { .strings([$0]) } }
    private static let integer: @Sendable (JSONValue) -> DBusValue? = { value in
        value.numberValue.flatMap { Int32(exactly: $0) }.map(DBusValue.int32)
    }
}

extension String {
    /// Percent-encodes what a URL path may not hold as it is (spaces, `#`, `?`, non-ASCII).
    var addingPercentEncodingForPath: String? {
        var encoded = ""
        for byte in utf8 {
            let scalar = Unicode.Scalar(byte)
            if MPRISNames.isPlain(scalar) || "/-._~!$&'()*+,;=:@".unicodeScalars.contains(scalar) {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}
