import Foundation
import GRDB

// MARK: - The process's file-size limit (`ulimit -f`, RLIMIT_FSIZE)

extension CatalogDatabase {
    /// The largest file this process may write, in bytes; nil when unlimited. With SIGXFSZ ignored (as the
    /// daemon does) a write past it fails with EFBIG, which SQLite reports as a plain disk I/O error.
    public static var fileSizeLimit: Int64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int64(clamping: limit.rlim_cur)
    }

    /// Why a write to the catalog at `path` failed, when SQLite's own words ("disk I/O error") do not say:
    /// a file of the catalog has reached the process's file-size limit. Nil for any other failure.
    public static func writeFailureCause(_ error: any Error, path: String) -> String? {
        guard let error = error as? DatabaseError,
              [.SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN].contains(error.resultCode),
              let limit = fileSizeLimit
        else { return nil }
        // A write that crossed the limit stopped at it: the file is within a few pages of it.
        let margin: Int64 = 64 * 1024
        let full = ["", "-wal", "-journal"].map { path + $0 }.first { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? nil
            return size.map { $0 + margin > limit } ?? false
        }
        let which = full.map { ($0 as NSString).lastPathComponent + " has reached it" } ?? "the catalog needs more"
        return "this process may write files of at most \(limit) bytes (ulimit -f), and \(which)"
    }

    /// `writeFailureCause` for this catalog's file.
    public func writeFailureCause(_ error: any Error) -> String? { Self.writeFailureCause(error, path: path) }
}
