import CGLib
import Foundation

/// SHA-256, for artwork content keys and catalog content hashes: swift-corelibs-foundation has no digest
/// API, and a key must be the same on every node and in every database written before, so it cannot be
/// Swift's seeded `Hasher`. GLib's checksum does the work: GStreamer and gdk-pixbuf already load GLib, so
/// it costs no build time and no memory.
public enum SHA256 {
    /// The digest of `data` as 64 lowercase hex digits.
    public static func hex(_ data: Data) -> String {
        data.withUnsafeBytes { hex(of: $0) }
    }

    /// The digest of a string's UTF-8 bytes as hex. A scan makes an identifier per track, album, artist
    /// and genre this way, so the bytes are read in place rather than copied.
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hex(of: UnsafeRawBufferPointer($0)) }
    }

    static func hex(of bytes: UnsafeRawBufferPointer) -> String {
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else {
            // GLib returns nil only for an unknown checksum type; SHA-256 has been there since 2.16.
            preconditionFailure("GLib has no SHA-256")
        }
        defer { g_checksum_free(checksum) }
        if let base = bytes.baseAddress, bytes.count > 0 {
            g_checksum_update(checksum, base.assumingMemoryBound(to: guchar.self), gssize(bytes.count))
        }
        // The string belongs to the checksum, which frees it.
        return String(cString: g_checksum_get_string(checksum))
    }
}

/// Identifiers that stay the same across refreshes, so progress, marks and head-unit selections survive.
public enum StableIdentifier {
    /// `<prefix>:<16 hex digits of SHA-256(key)>`: short, topic-safe, and stable for the same key.
    public static func make(_ prefix: String, key: String) -> String {
        prefix + ":" + String(SHA256.hex(key).prefix(16))
    }
}
