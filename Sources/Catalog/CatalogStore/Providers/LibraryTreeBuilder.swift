import ContentTree
import Foundation

/// Builds the Library section from scanned files: Artists > Albums > Tracks, plus Albums, Songs and Genres,
/// as a graph where each track and album exists once and is listed in several places.
struct LibraryTreeBuilder {
    let source: CatalogSource

    private struct Track {
        var record: LocalFileRecord
        var identifier: String
        var title: String
        var artist: String
        var albumKey: String
        /// Lowercased once here: sorting calls its comparison n log n times.
        var sortTitle: String
    }

    private struct Album {
        var identifier: String
        var title: String
        var directory: String
        var tracks: [Track] = []
        var year: Int?
        var artworkKey: String?
    }

    func build(records: [LocalFileRecord]) -> CatalogSnapshot {
        let sid = source.identifier
        // The preferred cover file per directory: cover.jpg before folder.jpg and the rest. A track's own
        // embedded picture takes precedence over it for that track.
        var covers: [String: (rank: Int, key: String)] = [:]
        for record in records {
            guard let key = record.artworkKey, let rank = Self.coverRank(record) else { continue }
            let directory = Self.split(record.path).directory
            if rank < covers[directory]?.rank ?? .max { covers[directory] = (rank, key) }
        }
        let coverByDirectory = covers.mapValues(\.key)

        var albums: [String: Album] = [:]
        for record in records where Self.coverRank(record) == nil {
            let (directory, fileName) = Self.split(record.path)
            let fileTitle = LocalPath.displayName(Self.dropExtension(fileName))
            let albumTitle = record.tags.album ?? LocalPath.displayName(Self.split(directory).name)
            let albumKey = directory + "\n" + albumTitle
            let title = record.tags.title ?? fileTitle
            let track = Track(
                record: record, identifier: StableIdentifier.make("track", key: sid + "\n" + record.path),
                title: title, artist: record.tags.artist ?? "Unknown Artist", albumKey: albumKey,
                sortTitle: title.lowercased())
            albums[albumKey, default: Album(
                identifier: StableIdentifier.make("album", key: sid + "\n" + albumKey), title: albumTitle,
                directory: directory, artworkKey: coverByDirectory[directory])
            ].tracks.append(track)
            if let year = record.tags.year, year > (albums[albumKey]?.year ?? 0) { albums[albumKey]?.year = year }
        }

        var snapshot = CatalogSnapshot()
        // No music, no folders: the Library section is left empty, so it shows its one status item (S25)
        // instead of four empty lists.
        guard !albums.isEmpty else { return snapshot }
        let sections = ["artists": "Artists", "albums": "Albums", "songs": "Songs", "genres": "Genres"]
        for key in ["artists", "albums", "songs", "genres"] {
            snapshot.add(.container("\(sid):\(key)", title: sections[key]!))
        }

        // Albums, each with its tracks in disc/track order.
        let sortedAlbums = albums.values.map { ($0.title.lowercased(), $0) }
            .sorted { ($0.0, $0.1.directory) < ($1.0, $1.1.directory) }.map(\.1)
        var allTracks: [(track: Track, item: ContentItem, album: Album)] = []
        var artistAlbums: [String: [Album]] = [:]
        for var album in sortedAlbums {
            album.tracks.sort { lhs, rhs in
                (lhs.record.tags.discNumber ?? 1, lhs.record.tags.trackNumber ?? .max, lhs.sortTitle, lhs.record.path)
                    < (rhs.record.tags.discNumber ?? 1, rhs.record.tags.trackNumber ?? .max, rhs.sortTitle, rhs.record.path)
            }
            // A folder without a cover file shows the picture embedded in its first track that has one.
            if album.artworkKey == nil {
                album.artworkKey = album.tracks.first { $0.record.artworkKey != nil }?.record.artworkKey
            }
            let artists = Set(album.tracks.map(\.artist))
            let albumArtist = artists.count == 1 ? artists.first! : "Various Artists"
            snapshot.add(ContentItem(
                identifier: album.identifier, title: album.title, subtitle: albumArtist, artworkKey: album.artworkKey,
                isContainer: true, artist: albumArtist, albumTitle: album.title, trackCount: album.tracks.count,
                releaseDate: album.year.map(String.init)), under: "\(sid):albums")
            for track in album.tracks {
                let tags = track.record.tags
                var item = ContentItem(
                    identifier: track.identifier, title: track.title, subtitle: track.artist,
                    artworkKey: track.record.artworkKey ?? album.artworkKey, isPlayable: true,
                    uri: LocalPath.fileURI(of: track.record.path), artist: track.artist,
                    albumTitle: album.title, duration: tags.duration, trackNumber: tags.trackNumber,
                    // The tag's count describes the release; the folder may hold only some of its tracks.
                    trackCount: tags.trackCount ?? album.tracks.count, discNumber: tags.discNumber,
                    discCount: tags.discCount, genre: tags.genre, releaseDate: tags.year.map(String.init),
                    composer: tags.composer, containerIdentifier: album.identifier)
                item.chapters = tags.chapters
                snapshot.add(item, under: album.identifier)
                allTracks.append((track, item, album))
            }
            for artist in artists.sorted() { artistAlbums[artist, default: []].append(album) }
        }

        // Artists > their albums (by year, then title).
        for artist in artistAlbums.keys.sorted(by: { $0.lowercased() < $1.lowercased() }) {
            let identifier = StableIdentifier.make("artist", key: sid + "\n" + artist.lowercased())
            let albumsOfArtist = artistAlbums[artist]!.sorted { ($0.year ?? 0, $0.title) < ($1.year ?? 0, $1.title) }
            snapshot.add(ContentItem(
                identifier: identifier, title: artist,
                subtitle: albumsOfArtist.count == 1 ? "1 album" : "\(albumsOfArtist.count) albums",
                artworkKey: albumsOfArtist.first?.artworkKey, isContainer: true, artist: artist),
                under: "\(sid):artists")
            for album in albumsOfArtist { snapshot.link(album.identifier, under: identifier) }
        }

        // Songs: every track by title.
        let byTitle = allTracks.sorted { ($0.track.sortTitle, $0.track.record.path) < ($1.track.sortTitle, $1.track.record.path) }
        for entry in byTitle { snapshot.link(entry.item.identifier, under: "\(sid):songs") }

        // Genres > tracks by artist, album, track.
        var genres: [String: [ContentItem]] = [:]
        for entry in allTracks { genres[entry.item.genre ?? "Unknown Genre", default: []].append(entry.item) }
        for genre in genres.keys.sorted(by: { $0.lowercased() < $1.lowercased() }) {
            let identifier = StableIdentifier.make("genre", key: sid + "\n" + genre.lowercased())
            snapshot.add(.container(identifier, title: genre), under: "\(sid):genres")
            for item in genres[genre]! { snapshot.link(item.identifier, under: identifier) }
        }
        return snapshot
    }

    /// The rank of a cover image among the cover names (0 is preferred), nil for an audio file. Only records
    /// with artwork can be covers, so most audio files are told apart without looking at their names.
    static func coverRank(_ record: LocalFileRecord) -> Int? {
        guard record.artworkKey != nil else { return nil }
        return LocalFolderProvider.coverNames.firstIndex(of: split(record.path).name.lowercased())
    }

    // Path pieces without NSString, which bridged and allocated three times per file.

    /// The folder and the last component of an absolute path ("/a/b.ogg" is ("/a", "b.ogg")).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    /// "01 Song.ogg" is "01 Song"; a name that starts with its only dot keeps it.
    static func dropExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
