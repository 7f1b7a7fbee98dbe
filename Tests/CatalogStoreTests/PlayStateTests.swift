import CatalogStore
import Foundation
import GRDB
import Testing

@Suite("The play state kept in the catalog file")
struct PlayStateTests {
    static func state(entries count: Int, current: Int?, elapsed: Double = 12.5) -> SavedPlayState {
        SavedPlayState(
            entries: (0..<count).map { .init(identifier: "track:\($0)", originalIndex: count - 1 - $0, container: "album:1") },
            currentIndex: current, elapsed: elapsed, repeatMode: "all", shuffleMode: "items", rate: 1.5, state: "playing",
            context: ["section:library", "album:1"], savedAt: 1_795_000_000)
    }

    @Test("a file from before the play state opens, migrates, and keeps what it held")
    func migratesOldFile() async throws {
        let temp = try TemporaryCatalog("play-state-migrate")
        defer { temp.remove() }
        do {
            let database = try temp.open()
            try await database.saveVolume(0.4)
            // The file as the version before this one left it: no play-state tables, no migration row.
            try await database.pool.write { db in
                try db.execute(sql: """
                    DROP TABLE play_state;
                    DROP TABLE play_queue;
                    DELETE FROM grdb_migrations WHERE identifier = 'play state';
                    """)
            }
            try database.close()
        }
        let database = try temp.open()
        #expect(try await database.savedPlayState() == nil)
        #expect(try await database.savedVolume() == 0.4)
        try await database.savePlayState(Self.state(entries: 3, current: 1), queueChanged: true)
        #expect(try await database.savedPlayState() == Self.state(entries: 3, current: 1))
    }

    @Test("a queue of 10,000 entries saves and reads back in its play order; a position save leaves the queue's rows alone")
    func largeQueue() async throws {
        let temp = try TemporaryCatalog("play-state-large")
        defer { temp.remove() }
        let database = try temp.open()
        let saved = Self.state(entries: 10_000, current: 9_999)
        try await database.savePlayState(saved, queueChanged: true)
        try await database.savePlayPosition(99.5, savedAt: 1_795_000_010)
        var expected = saved
        expected.elapsed = 99.5
        expected.savedAt = 1_795_000_010
        try database.close()
        #expect(try await temp.open().savedPlayState() == expected)
    }

    @Test("a row that cannot be read is an error, not a crash")
    func damagedRow() async throws {
        let temp = try TemporaryCatalog("play-state-damaged")
        defer { temp.remove() }
        let database = try temp.open()
        try await database.savePlayState(Self.state(entries: 2, current: 0), queueChanged: true)
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE play_state SET elapsed = 'half way'")
        }
        await #expect(throws: (any Error).self) { try await database.savedPlayState() }
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE play_state SET elapsed = 3; UPDATE play_queue SET originalIndex = 'first' WHERE playIndex = 0")
        }
        await #expect(throws: (any Error).self) { try await database.savedPlayState() }
    }
}
