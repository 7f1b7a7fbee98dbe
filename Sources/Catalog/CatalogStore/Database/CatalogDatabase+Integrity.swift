import ContentTree
import Dispatch
import Foundation
import GRDB

// MARK: - The full integrity check, after the start

extension CatalogDatabase {
    /// Next to the database: says an earlier run found it corrupt but could not replace it then.
    static let rebuildMarkSuffix = ".needs-rebuild"

    /// Runs `PRAGMA quick_check` on the whole file now (for a catalog opened with `.deferred`). A file that
    /// fails it is moved aside and replaced by an empty catalog, as at open, and every `changes()`
    /// subscriber hears that the root changed, so the tree shows what is left (nothing, until the sources
    /// refill it). Returns where the corrupt file went; nil when it passed, or could not be checked or
    /// replaced now (then it is moved aside at the next open).
    @discardableResult
    public func verifyIntegrity() async -> String? {
        // Made from a file just checked, and never written to disk: a power cut cannot tear it.
        if isInMemory { return nil }
        let started = ContinuousClock.now
        let problems: [String]
        do {
            problems = try await read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        } catch where Self.isCorruption(error) {
            problems = ["\(error)"]
        } catch is CancellationError {
            return nil
        } catch {
            logger.warning("could not check the catalog's integrity", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
        guard problems != ["ok"] else {
            logger.debug("catalog integrity check passed", metadata: ["took": "\(ContinuousClock.now - started)"])
            return nil
        }
        let detail = problems.prefix(5).joined(separator: "; ")
        let aside: String
        do {
            aside = try await rebuild()
            logger.error(
                "catalog database failed its integrity check while in use; moved aside and rebuilt empty, sources refill it",
                metadata: ["path": "\(path)", "movedTo": "\(aside)", "error": "\(detail)"])
        } catch {
            Self.markForRebuild(path: path, detail: detail)
            logger.error(
                "catalog database failed its integrity check and cannot be replaced while in use; it is moved aside at the next start",
                metadata: ["path": "\(path)", "error": "\(detail)", "rebuildError": "\(error)"])
            return nil
        }
        broadcaster.publish(CatalogDiff(changedContainers: [ContentItem.rootIdentifier]))
        return aside
    }

    /// Closes the current pool and browse connections, moves the files aside and opens an empty catalog in
    /// their place.
    ///
    /// The old pool is closed before the new file exists: SQLite deletes a WAL file by name when its last
    /// writing connection closes, which would otherwise be the new catalog's. Calls made meanwhile fail
    /// with "connection is closed" and are reported like any read error.
    func rebuild() async throws -> String {
        let old = pool
        // Interrupted, a long refresh transaction gives way at once instead of holding up the close.
        old.interrupt()
        try browseReaders.reset()
        try await Self.offCooperativePool { try old.close() }
        let aside = try Self.moveAside(path: path)
        let fresh = try Self.open(path: path, checkIntegrity: false)
        currentPool.withLock { $0 = fresh }
        // A browse while the old pool closed opened the old file again, and its connection, kept idle,
        // would go on reading the corrupt copy moved aside: drop those too.
        try browseReaders.reset()
        return aside
    }

    /// Leaves a note so the next open moves the file aside before using it.
    static func markForRebuild(path: String, detail: String) {
        _ = FileManager.default.createFile(atPath: path + rebuildMarkSuffix, contents: Data(detail.utf8))
    }

    /// The note an earlier run left, if any.
    static func rebuildMark(path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path + rebuildMarkSuffix) else { return nil }
        return "found corrupt by an earlier run: " + String(decoding: data, as: UTF8.self)
    }

    /// Runs blocking work (a pool close waits for the accesses in flight) on a thread outside Swift's
    /// small cooperative pool.
    static func offCooperativePool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
