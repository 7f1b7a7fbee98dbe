import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A catalog file the node cannot use where it is, said in one line an operator can act on.
public struct CatalogFileProblem: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        "cannot use the catalog database \(path): \(reason); make it writable, or give --database a file in a "
            + "writable folder (the catalog is a cache: a new file is filled again from the sources)"
    }
}

extension CatalogDatabase {
    /// Checks that the catalog file (when it exists) and its folder can be written: SQLite keeps its
    /// journal beside the file, and a corrupt file is moved aside there. Without this a read-only file
    /// opens read-only and every save fails later, one log line at a time.
    ///
    /// `access()` is asked rather than the permission bits: it also sees read-only mounts and immutable
    /// files, which stop root as well.
    public static func checkWritable(path: String) throws(CatalogFileProblem) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if access(folder, W_OK) != 0 {
            throw CatalogFileProblem(path: path, reason: "its folder \(folder) cannot be written (\(Self.errnoText()))")
        }
        if access(path, F_OK) == 0, access(path, W_OK) != 0 {
            throw CatalogFileProblem(path: path, reason: "the file cannot be written (\(Self.errnoText()))")
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
