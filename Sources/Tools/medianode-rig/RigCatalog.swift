import CatalogStore
import ContentTree
import Foundation
import GRDB

/// The small catalog every rig node gets: a few artists with albums under the library section and a few
/// podcast-like shows of episodes under the podcasts section, the same for every node.
///
/// Every node has a file of its own, copied from one written once: a node writes to its catalog while it
/// runs (the volume it keeps across restarts, positions of items played part-way, which tree topics it
/// left retained), so a shared file would have nodes overwrite each other's state, and a read-only one
/// would log a failed save on every pause. Copying one file is much cheaper than building a thousand.
struct RigCatalog {
    struct Playable: Sendable {
        var identifier: String
        var title: String
        var length: Double
    }

    /// Seconds of every playable's URI, for the simulated output.
    private(set) var lengths: [String: Double] = [:]
    private(set) var playables: [Playable] = []
    private(set) var snapshots: [(CatalogSource, CatalogSnapshot)] = []

    init(artists: Int = 3, albumsPerArtist: Int = 2, tracksPerAlbum: Int = 8, shows: Int = 2, episodesPerShow: Int = 6) {
        let library = CatalogSource(kind: .local, location: "rig://library")
        var music = CatalogSnapshot(title: "Rig library")
        let artistsRoot = "rig-artists", albumsRoot = "rig-albums"
        music.add(.container(artistsRoot, title: "Artists"))
        music.add(.container(albumsRoot, title: "Albums"))
        var trackNumber = 0
        for artist in 0..<artists {
            let artistID = "rig-artist-\(artist)", artistName = "Artist \(artist)"
            music.add(.container(artistID, title: artistName), under: artistsRoot)
            for album in 0..<albumsPerArtist {
                let albumID = "rig-album-\(artist)-\(album)", albumTitle = "Album \(artist)-\(album)"
                music.add(
                    ContentItem(identifier: albumID, title: albumTitle, subtitle: artistName, isContainer: true,
                                artist: artistName),
                    under: albumsRoot)
                music.link(albumID, under: artistID)
                for track in 0..<tracksPerAlbum {
                    trackNumber += 1
                    // Lengths from one to four minutes: long enough that a command rarely meets an item's
                    // end, short enough that a run of a few minutes sees items end and the next start.
                    let length = Double(60 + (trackNumber * 37) % 180)
                    let identifier = "rig-track-\(artist)-\(album)-\(track)"
                    let uri = "file:///rig/music/\(identifier).ogg"
                    music.add(
                        ContentItem(
                            identifier: identifier, title: "Track \(track + 1) of \(albumTitle)", subtitle: artistName,
                            isPlayable: true, uri: uri, artist: artistName, albumTitle: albumTitle, duration: length,
                            trackNumber: track + 1, trackCount: tracksPerAlbum, genre: "Rig",
                            containerIdentifier: albumID),
                        under: albumID)
                    lengths[uri] = length
                    playables.append(Playable(identifier: identifier, title: "Track \(track + 1) of \(albumTitle)", length: length))
                }
            }
        }
        snapshots.append((library, music))

        let podcasts = CatalogSource(kind: .podcast, location: "rig://podcasts")
        var feed = CatalogSnapshot(title: "Rig podcasts")
        for show in 0..<shows {
            let showID = "rig-show-\(show)", showTitle = "Show \(show)"
            feed.add(ContentItem(identifier: showID, title: showTitle, subtitle: "Rig Radio", isContainer: true,
                                 displaysPlaybackProgress: true))
            for episode in 0..<episodesPerShow {
                let length = Double(600 + episode * 120)
                let identifier = "rig-episode-\(show)-\(episode)"
                let uri = "file:///rig/podcasts/\(identifier).mp3"
                feed.add(
                    ContentItem(
                        identifier: identifier, title: "Episode \(episode + 1) of \(showTitle)", subtitle: showTitle,
                        isPlayable: true, uri: uri, artist: "Rig Radio", albumTitle: showTitle, duration: length,
                        summary: "A generated episode.", containerIdentifier: showID),
                    under: showID)
                lengths[uri] = length
                playables.append(Playable(identifier: identifier, title: "Episode \(episode + 1) of \(showTitle)", length: length))
            }
        }
        snapshots.append((podcasts, feed))
    }

    /// Writes the catalog once, as a closed SQLite file at `path` with nothing left in its journal.
    func writeTemplate(at path: String) async throws {
        let database = try CatalogDatabase(path: path)
        for (source, snapshot) in snapshots {
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: snapshot)
        }
        // Into the main file, so a copy of that file alone holds everything.
        try await database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try database.close()
        // Pages of 1 KiB, not SQLite's 4 KiB: each of the catalog's 33 tables and indexes takes a page of its
        // own however few rows it holds, and every node keeps all of its pages in memory: 44 pages of 4 KiB took
        // 196 KiB of page cache a node, 81 of 1 KiB take 104 KiB. The page size cannot change in WAL mode.
        let file = try DatabaseQueue(path: path)
        try await file.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
            try db.execute(sql: "VACUUM")
        }
        try file.close()
    }

    static let pageSize = 1024
}
