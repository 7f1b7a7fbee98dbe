import Foundation
import Synchronization

/// The pictures MPRIS clients read by `mpris:artUrl`: each written once, as a file named by its content
/// key, in a folder of the node's own (by default under `$XDG_RUNTIME_DIR`, which is memory, not the car's
/// flash). Only the newest `limit` files are kept.
///
/// Threading: safe from any thread; a write happens once per picture, on the caller's thread.
public final class MPRISArtworkFiles: Sendable {
    public let directory: URL
    private let limit: Int
    /// The files written, oldest first.
    private let written = Mutex<[String]>([])

    public init(directory: URL, limit: Int = 64) {
        self.directory = directory
        self.limit = limit
    }

    /// A folder for node `nodeID`: `$XDG_RUNTIME_DIR/medianode-<id>/mpris-artwork`, else the temporary folder.
    public static func defaultDirectory(nodeID: String) -> URL {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        return runtime.appendingPathComponent("medianode-\(nodeID)").appendingPathComponent("mpris-artwork")
    }

    /// The `file://` URL of the picture named `key`, if it has been written.
    public func knownURL(for key: String) -> String? {
        let name = Self.safeName(key)
        return written.withLock { $0.first { $0.hasPrefix(name + ".") } }.map { directory.appendingPathComponent($0).absoluteString }
    }

    /// The `file://` URL of the picture named `key`, written first if it is not there yet; nil if it cannot be.
    public func url(for key: String, bytes: [UInt8]) -> String? {
        if let known = knownURL(for: key) { return known }
        guard !bytes.isEmpty else { return nil }
        let file = Self.safeName(key) + "." + Self.fileExtension(of: bytes)
        let url = directory.appendingPathComponent(file)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            return nil
        }
        let evicted = written.withLock { files -> [String] in
            guard !files.contains(file) else { return [] }
            files.append(file)
            guard files.count > limit else { return [] }
            defer { files.removeFirst(files.count - limit) }
            return Array(files.prefix(files.count - limit))
        }
        for old in evicted { try? FileManager.default.removeItem(at: directory.appendingPathComponent(old)) }
        return url.absoluteString
    }

    /// Removes the files written (at shutdown: a picture of a node that no longer runs is nobody's).
    public func removeAll() {
        let files = written.withLock { files in
            defer { files = [] }
            return files
        }
        for file in files { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file)) }
    }

    static func fileExtension(of bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        return "jpg"
    }

    /// A key as a file name: letters, digits, `-` and `_` only.
    static func safeName(_ key: String) -> String {
        let kept = key.unicodeScalars.map { MPRISNames.isPlain($0) || $0 == "-" ? Character($0) : "_" }
        return String(kept.prefix(96))
    }
}
