/// The names MPRIS 2.2 fixes, and the ones the node chooses inside them.
public enum MPRISNames {
    public static let objectPath = "/org/mpris/MediaPlayer2"
    public static let root = "org.mpris.MediaPlayer2"
    public static let player = "org.mpris.MediaPlayer2.Player"
    public static let trackList = "org.mpris.MediaPlayer2.TrackList"
    public static let properties = "org.freedesktop.DBus.Properties"
    /// The error a call the command center refuses returns, with the reply's message.
    public static let commandFailed = "org.mpris.MediaPlayer2.MediaNode.CommandFailed"
    /// The `mpris:trackid` of "no track" (MPRIS 2.2).
    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// `org.mpris.MediaPlayer2.medianode.ID`: the node id with every character outside `[A-Za-z0-9_]`
    /// replaced by `_`. A bus name's element may not start with a digit, so an id that does gets a `_` in
    /// front (`1car` is `_1car`).
    public static func busName(nodeID: String) -> String {
        var element = String(nodeID.unicodeScalars.map { isPlain($0) ? Character($0) : "_" })
        if element.isEmpty || element.first!.isNumber { element = "_" + element }
        return "org.mpris.MediaPlayer2.medianode." + element
    }

    static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar))
    }
}

/// The `mpris:trackid` of each queue entry: an object path made from the entry's identifier, so it stays
/// the same while the entry is in the queue, whatever moves around it. An identifier queued more than once
/// gets its occurrence (in play order) as a last element: `.../Track/<identifier>/2`.
public enum MPRISTrackID {
    static let prefix = "/org/medianode/MediaNode/Track/"

    /// The track ids of a queue, in play order.
    public static func paths(for identifiers: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return identifiers.map { identifier in
            let occurrence = seen[identifier, default: 0]
            seen[identifier] = occurrence + 1
            return prefix + escape(identifier) + (occurrence == 0 ? "" : "/\(occurrence + 1)")
        }
    }

    /// The identifier a track id names; nil for a path that is not one of the node's track ids.
    public static func identifier(of path: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        let element = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).first ?? ""
        return unescape(element)
    }

    /// Letters and digits stay; every other byte is `_` and two hex digits; an empty identifier is `_`.
    static func escape(_ identifier: String) -> String {
        guard !identifier.isEmpty else { return "_" }
        var escaped = ""
        for byte in identifier.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar != "_", MPRISNames.isPlain(scalar) {
                escaped.unicodeScalars.append(scalar)
            } else {
                escaped += "_" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return escaped
    }

    static func unescape(_ element: Substring) -> String? {
        guard element != "_" else { return "" }
        var bytes: [UInt8] = []
        var index = element.startIndex
        while index < element.endIndex {
            if element[index] == "_" {
                let hexStart = element.index(after: index)
                guard let hexEnd = element.index(hexStart, offsetBy: 2, limitedBy: element.endIndex),
                      let byte = UInt8(element[hexStart..<hexEnd], radix: 16) else { return nil }
                bytes.append(byte)
                index = hexEnd
            } else {
                bytes.append(contentsOf: element[index].utf8)
                index = element.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
