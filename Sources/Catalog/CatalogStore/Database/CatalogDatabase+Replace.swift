import ContentTree
import Foundation
import GRDB

// MARK: - Swapping in a source's new content, in one transaction, and saying what changed (S27)

/// What a successful fetch learned besides the content, stored with it in the same transaction.
public struct FetchValidators: Sendable, Hashable {
    public var etag: String?
    public var lastModified: String?
    /// SHA-256 of the body that produced the snapshot.
    public var contentHash: String?
    /// The source's own title (a feed's channel title).
    public var title: String?

    public init(etag: String? = nil, lastModified: String? = nil, contentHash: String? = nil, title: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.contentHash = contentHash
        self.title = title
    }
}

extension CatalogDatabase {
    /// Replaces everything `sourceIdentifier` contributed with `snapshot`, atomically, and returns which
    /// containers were added, removed or changed. Unchanged rows are not rewritten, so an identical
    /// snapshot returns an empty diff and costs only reads. Subscribers of `changes()` get the diff too.
    @discardableResult
    public func replaceContent(
        of sourceIdentifier: String, with snapshot: CatalogSnapshot, validators: FetchValidators = FetchValidators(),
        at time: Double = Date().timeIntervalSince1970
    ) async throws -> CatalogDiff {
        let diff = try await pool.write { db in
            guard let source = try Self.source(sourceIdentifier, in: db) else {
                throw CatalogDatabaseError.unknownSource(sourceIdentifier)
            }
            var validators = validators
            validators.title = validators.title ?? snapshot.title
            let diff = try Self.replace(source: source, with: snapshot, validators: validators, in: db)
            try Self.recordSuccess(validators, for: sourceIdentifier, at: time, in: db)
            return diff
        }
        broadcaster.publish(diff)
        return diff
    }

    static func replace(
        source: CatalogSource, with snapshot: CatalogSnapshot, validators: FetchValidators, in db: Database
    ) throws -> CatalogDiff {
        try validate(snapshot, mount: source.mount)
        let sourceID = source.identifier
        var diff = CatalogDiff(sourceIdentifier: sourceID)

        // The previous state of this source: rowids, digests and child lists.
        var old: [String: (rowid: Int64, digest: String, isContainer: Bool)] = [:]
        let itemRows = try Row.fetchCursor(
            db, sql: "SELECT identifier, rowid, digest, isContainer FROM item WHERE sourceIdentifier = ?",
            arguments: [sourceID])
        while let row = try itemRows.next() { old[row[0]] = (row[1], row[2], row[3]) }
        // A source's child rows are those of its own containers, plus its share of the mount's; each list is
        // put in position order here (the rows come in key order, but no ORDER BY promises it).
        var listed: [String: [(position: Int, identifier: String)]] = [:]
        let childRows = try Row.fetchCursor(
            db,
            sql: """
                SELECT child.parent, child.position, child.identifier FROM item
                JOIN child ON child.parent = item.identifier
                WHERE item.sourceIdentifier = ?1 AND item.isContainer
                UNION ALL
                SELECT parent, position, identifier FROM child WHERE parent = ?2 AND sourceIdentifier = ?1
                """,
            arguments: [sourceID, source.mount])
        while let row = try childRows.next() { listed[row[0], default: []].append((row[1], row[2])) }
        let oldChildren = listed.mapValues { rows in
            let ordered = zip(rows, rows.dropFirst()).allSatisfy { $0.position < $1.position }
            return (ordered ? rows : rows.sorted { $0.position < $1.position }).map(\.identifier)
        }

        // Items that left: out of the search index while their values are still there, then out of the table.
        var gone: [Int64] = []
        for (identifier, previous) in old where snapshot.items[identifier] == nil {
            gone.append(previous.rowid)
            diff.removedItems += 1
            if previous.isContainer { diff.removedContainers.insert(identifier) }
        }
        try SearchIndex.remove(gone, in: db)
        if !gone.isEmpty {
            try db.execute(
                sql: "DELETE FROM item WHERE rowid IN (SELECT value FROM json_each(?))",
                arguments: [SearchIndex.jsonArray(gone)])
        }

        // New rows get rowids above today's largest, which is how the search index finds them afterwards.
        let largestRowid = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM item") ?? 0
        var rowids: [String: Int64] = [:]
        rowids.reserveCapacity(snapshot.count)
        var changed: [(item: ContentItem, digest: String, rowid: Int64)] = []
        var inserted: [ContentItem] = []
        var updated = Set<String>()
        let insert = try DirectStatement(db, sql: "INSERT INTO item (\(CatalogSchema.itemColumns)) VALUES (\(placeholders(25)))")
        // Containers are written before playables, so a list of containers (the albums, the artists) sits
        // together in the item table: in listing order albums alternated with their tracks, and a page of
        // fifty albums read fifty table pages.
        let containersFirst = snapshot.order.filter { snapshot.items[$0]?.isContainer == true }
            + snapshot.order.filter { snapshot.items[$0]?.isContainer == false }
        for identifier in containersFirst {
            guard let item = snapshot.items[identifier] else { continue }
            let digest = item.storedDigest
            if let previous = old[identifier] {
                rowids[identifier] = previous.rowid
                guard previous.digest != digest else { continue }
                changed.append((item, digest, previous.rowid))
                updated.insert(identifier)
                diff.updatedItems += 1
                if item.isContainer, previous.isContainer { diff.changedContainers.insert(identifier) }
                if item.isContainer, !previous.isContainer { diff.addedContainers.insert(identifier) }
                if !item.isContainer, previous.isContainer { diff.removedContainers.insert(identifier) }
            } else {
                do {
                    insert.bindItem(item, source: sourceID, digest: digest)
                    try insert.run()
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw CatalogDatabaseError.invalidSnapshot("identifier \(identifier) belongs to another source")
                }
                rowids[identifier] = db.lastInsertedRowID
                if item.chapters != nil { inserted.append(item) }
                diff.addedItems += 1
                if item.isContainer { diff.addedContainers.insert(identifier) }
            }
        }
        if !changed.isEmpty {
            try SearchIndex.remove(changed.map(\.rowid), in: db)
            let update = try DirectStatement(db, sql: """
                UPDATE item SET (\(CatalogSchema.itemColumns)) = (\(placeholders(25))) WHERE rowid = ?
                """)
            for change in changed {
                update.bindItem(change.item, source: sourceID, digest: change.digest)
                update.bind(26, change.rowid)
                try update.run()
            }
            try SearchIndex.add(changed.map(\.rowid), in: db)
        }
        if diff.addedItems > 0 { try SearchIndex.add(above: largestRowid, in: db) }
        try storeChapters(of: inserted + changed.map(\.item), in: db)

        // Child lists: rewrite only those that differ; a listed child whose fields changed dirties its parent.
        var newChildren = snapshot.children
        newChildren[source.mount] = newChildren.removeValue(forKey: CatalogSnapshot.topLevelKey)
        let deleteChildren = try db.cachedStatement(sql: "DELETE FROM child WHERE parent = ?")
        let insertChild = try ChildInsert(db)
        let setCount = try db.cachedStatement(sql: "UPDATE item SET childCount = ? WHERE identifier = ?")
        var mountChanged = false
        for parent in Set(oldChildren.keys).union(newChildren.keys) {
            let before = oldChildren[parent] ?? []
            let after = newChildren[parent] ?? []
            let listChanged = before != after
            if listChanged || after.contains(where: updated.contains) { diff.changedContainers.insert(parent) }
            guard listChanged else { continue }
            if parent == source.mount {
                mountChanged = true
                continue
            }
            try deleteChildren.execute(arguments: [parent])
            for (position, child) in after.enumerated() {
                try insertChild.run(parent: parent, position: position, child: child, source: sourceID, rowid: rowids[child])
            }
            if snapshot.items[parent] != nil { try setCount.execute(arguments: [after.count, parent]) }
        }
        if mountChanged {
            try db.execute(
                sql: "DELETE FROM child WHERE parent = ? AND sourceIdentifier = ?", arguments: [source.mount, sourceID])
            for (index, child) in (newChildren[source.mount] ?? []).enumerated() {
                try insertChild.run(
                    parent: source.mount, position: Self.pendingPosition + index, child: child, source: sourceID,
                    rowid: rowids[child])
            }
            try renumberMount(source.mount, in: db)
        }

        for blob in snapshot.artwork.values { try insertArtwork(blob, in: db) }
        if diff.removedItems > 0 || diff.updatedItems > 0 { try pruneArtwork(in: db) }
        if let files = snapshot.localFiles { try storeLocalFiles(files, for: sourceID, in: db) }

        diff.changedContainers.subtract(diff.addedContainers)
        diff.changedContainers.subtract(diff.removedContainers)
        return diff
    }

    static let insertChildSQL = """
        INSERT INTO child (parent, position, identifier, sourceIdentifier, itemRowid) VALUES (?, ?, ?, ?, ?)
        """

    /// One row of a child list.
    struct ChildInsert {
        let statement: DirectStatement
        init(_ db: Database) throws { statement = try DirectStatement(db, sql: insertChildSQL) }

        func run(parent: String, position: Int, child: String, source: String?, rowid: Int64?) throws {
            statement.bind(1, parent)
            statement.bind(2, position)
            statement.bind(3, child)
            statement.bind(4, source)
            statement.bind(5, rowid)
            try statement.run()
        }
    }

    /// Positions for freshly inserted mount rows, above any real position, until `renumberMount` runs.
    static let pendingPosition = 1 << 40

    /// Rewrites a shared container's positions densely: sections first in their fixed order, then each
    /// source's nodes in (rank, source) order, keeping every source's own order, then the sections no
    /// source fills (`trailingSections`).
    static func renumberMount(_ mount: String, in db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT child.identifier, child.sourceIdentifier, child.position, source.rank, child.itemRowid FROM child
                LEFT JOIN source ON source.identifier = child.sourceIdentifier WHERE child.parent = ?
                """,
            arguments: [mount])
        let sorted = rows.sorted { sortKey($0) < sortKey($1) }
        try db.execute(sql: "DELETE FROM child WHERE parent = ?", arguments: [mount])
        let insert = try ChildInsert(db)
        for (position, row) in sorted.enumerated() {
            try insert.run(parent: mount, position: position, child: row[0], source: row[1], rowid: row[4])
        }
        try db.execute(sql: "UPDATE item SET childCount = ? WHERE identifier = ?", arguments: [sorted.count, mount])
    }

    private static func sortKey(_ row: Row) -> SortKey {
        let owner: String? = row[1]
        guard let owner else {
            let identifier: String = row[0]
            if let rank = trailingSections.firstIndex(of: identifier) {
                return SortKey(group: 2, rank: rank, owner: "", position: row[2])
            }
            let rank = sectionOrder.firstIndex(of: identifier) ?? sectionOrder.count
            return SortKey(group: 0, rank: rank, owner: "", position: row[2])
        }
        return SortKey(group: 1, rank: row[3] ?? 0, owner: owner, position: row[2])
    }

    private struct SortKey: Comparable {
        var group: Int, rank: Int, owner: String, position: Int
        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.group, lhs.rank, lhs.owner, lhs.position) < (rhs.group, rhs.rank, rhs.owner, rhs.position)
        }
    }

    static func validate(_ snapshot: CatalogSnapshot, mount: String) throws {
        if snapshot.items[mount] != nil || snapshot.items[ContentItem.rootIdentifier] != nil {
            throw CatalogDatabaseError.invalidSnapshot("a snapshot may not redefine \(mount) or the root")
        }
        for parent in snapshot.children.keys where parent != CatalogSnapshot.topLevelKey {
            guard let container = snapshot.items[parent], container.isContainer else {
                throw CatalogDatabaseError.invalidSnapshot("children listed under \(parent), which is not a container")
            }
        }
    }
}
