import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A catalog file the node cannot use where it is, said in one line an operator can act on.
public struct CatalogFileProblem: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// What to do about it; by default, make the file writable.
    public let advice: String

    public init(path: String, reason: String, advice: String? = nil) {
        self.path = path
        self.reason = reason
        self.advice = advice ?? "make it writable, or give --database a file in a writable folder"
    }

    /// A failure to open or create the catalog, saying why when SQLite's words do not (a file-size limit).
    public init(path: String, error: any Error) {
        if let cause = CatalogDatabase.writeFailureCause(error, path: path) {
            self.init(path: path, reason: "\(cause) (\(error))",
                      advice: "raise the limit (systemd: LimitFSIZE=), or start the node without it")
        } else {
            self.init(path: path, reason: "\(error)")
        }
    }

    public var description: String {
        "cannot use the catalog database \(path): \(reason); \(advice) "
            + "(the catalog is a cache: a new file is filled again from the sources)"
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
