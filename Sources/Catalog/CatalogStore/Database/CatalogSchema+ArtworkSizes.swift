import Foundation
import GRDB

extension CatalogSchema {
    /// The pixel size of every cached picture, read from its header, so the tree's items name their
    /// artwork with its type and size as now playing does.
    static func registerArtworkSizes(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6: artwork sizes") { db in
            try db.execute(sql: """
                ALTER TABLE artwork ADD COLUMN width INTEGER;
                ALTER TABLE artwork ADD COLUMN height INTEGER;
                """)
            let rows = try Row.fetchAll(db, sql: "SELECT key, bytes FROM artwork")
            for row in rows {
                let bytes: Data = row[1]
                guard let size = ImageSize.of(bytes) else { continue }
                try db.execute(
                    sql: "UPDATE artwork SET width = ?, height = ? WHERE key = ?",
                    arguments: [size.width, size.height, row[0] as String])
            }
        }
    }
}
