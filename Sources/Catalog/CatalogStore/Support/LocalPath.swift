import Foundation

/// File names are bytes, not text: a USB stick or an archive from an older system holds names in Latin-1
/// or another 8-bit charset, which are not UTF-8. A path is kept as a String that maps back to its exact
/// bytes: valid UTF-8 as it is, and each byte outside it as one private-use character, U+F700 + the byte
/// (as U+F7E9 for Latin-1's é). A name that is valid UTF-8 but holds such a character itself has those
/// bytes escaped too, so the mapping goes both ways for every name. Everything that opens a library file
/// (stat, opendir, TagLib, GStreamer through the item's URI) goes through the bytes; what a person sees is
/// `displayName`, decoded with a fallback as MPD's filesystem_charset does.
public enum LocalPath {
    static let escapes: ClosedRange<UInt32> = 0xF700...0xF7FF

    /// The path string for these file-system bytes.
    public static func string(fromBytes bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        if let plain = String(validating: bytes, as: UTF8.self), !plain.unicodeScalars.contains(where: { escapes.contains($0.value) }) {
            return plain
        }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        func escape(_ range: Range<Int>) {
            for byte in bytes[range] { scalars.append(Unicode.Scalar(escapes.lowerBound + UInt32(byte))!) }
        }
        parsing: while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if escapes.contains(scalar.value) { escape(offset..<offset + encoded.count) } else { scalars.append(scalar) }
                offset += encoded.count
            case let .error(length):
                escape(offset..<offset + length)
                offset += length
            case .emptyInput:
                break parsing
            }
        }
        return String(scalars)
    }

    /// The file-system bytes of a path string (without a terminating NUL).
    public static func bytes(of path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: { escapes.contains($0.value) }) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        for scalar in path.unicodeScalars {
            if escapes.contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapes.lowerBound))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Whether the path's bytes are its UTF-8, so any API that takes a String path opens the right file.
    public static func isPlain(_ path: String) -> Bool {
        !path.unicodeScalars.contains { escapes.contains($0.value) }
    }

    /// Calls `body` with the path as the C string the system calls take.
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        var bytes = bytes(of: path).map { CChar(bitPattern: $0) }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The `file://` URI of a path, each byte outside the URI's path characters percent-encoded: GStreamer
    /// opens the file by those bytes.
    public static func fileURI(of path: String) -> String {
        guard !isPlain(path) else { return URL(fileURLWithPath: path).absoluteString }
        var uri = "file://"
        for byte in bytes(of: path) {
            if byte < 0x80, pathCharacters.contains(Unicode.Scalar(byte)) {
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                uri += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return uri
    }

    /// The path string of a `file://` URI (percent escapes decoded to bytes), or nil for any other URI.
    public static func path(fromFileURI uri: String) -> String? {
        guard uri.hasPrefix("file://") else { return nil }
        var rest = Substring(uri.dropFirst("file://".count))
        // file://localhost/... and file:///... name the same file.
        if !rest.hasPrefix("/") {
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            rest = rest[slash...]
        }
        let raw = Array(rest.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < raw.count {
            if raw[index] == UInt8(ascii: "%"), index + 2 < raw.count,
               let value = UInt8(String(decoding: raw[index + 1...index + 2], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(raw[index])
                index += 1
            }
        }
        return string(fromBytes: bytes)
    }

    /// A name as a person reads it: valid UTF-8 as it is, each other byte as Windows-1252 (Latin-1 with
    /// the printable characters Windows puts at 0x80...0x9F), the charset old media most often used.
    public static func displayName(_ name: String) -> String {
        guard !isPlain(name) else { return name }
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            guard escapes.contains(scalar.value) else { scalars.append(scalar); continue }
            let byte = UInt8(scalar.value - escapes.lowerBound)
            let code = (0x80...0x9F).contains(byte) ? windows1252[Int(byte - 0x80)] : UInt32(byte)
            scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// The file's bytes, or nil when it cannot be read.
    public static func contents(of path: String) -> Data? {
        guard isPlain(path) else {
            let descriptor = withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
            guard descriptor >= 0 else { return nil }
            return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile()
        }
        return FileManager.default.contents(atPath: path)
    }

    /// Whether a file (or folder) is there.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return withCString(path) { stat($0, &info) } == 0
    }

    /// RFC 3986 path characters that need no escaping (as Foundation leaves them in a file URL).
    private static let pathCharacters: Set<Unicode.Scalar> = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/".unicodeScalars)

    /// Windows-1252 at 0x80...0x9F; its five unassigned codes are kept as the C1 controls Latin-1 has there.
    private static let windows1252: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x9D, 0x017E, 0x0178,
    ]
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
