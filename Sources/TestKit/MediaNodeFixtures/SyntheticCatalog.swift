import CatalogStore
import ContentTree
import Foundation

/// Generated catalogs of any size, for scale tests, crash tests and measurements; deterministic, so two
/// runs with the same arguments produce the same identifiers.
public enum SyntheticCatalog {
    /// `items` playables in albums of `perAlbum`, grouped under `artists` artists; every title carries
    /// `generation`, so a test can tell which import a reader sees.
    public static func snapshot(
        source: CatalogSource, items: Int, perAlbum: Int = 100, artists: Int = 50, generation: Int = 0
    ) -> CatalogSnapshot {
        var snapshot = CatalogSnapshot(title: "Synthetic \(generation)")
        let sid = source.identifier
        let artistsRoot = "\(sid)/artists", albumsRoot = "\(sid)/albums"
        snapshot.add(.container(artistsRoot, title: "Artists"))
        snapshot.add(.container(albumsRoot, title: "Albums"))
        let albumCount = (items + perAlbum - 1) / max(1, perAlbum)
        for artist in 0..<min(artists, max(1, albumCount)) {
            snapshot.add(.container("\(sid)/artist/\(artist)", title: "Artist \(artist)"), under: artistsRoot)
        }
        for album in 0..<albumCount {
            let artist = album % min(artists, max(1, albumCount))
            let albumID = "\(sid)/album/\(album)"
            snapshot.add(
                ContentItem(
                    identifier: albumID, title: "Album \(album) g\(generation)", subtitle: "Artist \(artist)",
                    isContainer: true, artist: "Artist \(artist)"),
                under: albumsRoot)
            snapshot.link(albumID, under: "\(sid)/artist/\(artist)")
            let first = album * perAlbum
            for index in first..<min(items, first + perAlbum) {
                snapshot.add(
                    ContentItem(
                        identifier: "\(sid)/track/\(index)", title: "Track \(index) g\(generation)",
                        subtitle: "Artist \(artist)", isPlayable: true, uri: "file:///music/\(index).ogg",
                        artist: "Artist \(artist)", albumTitle: "Album \(album) g\(generation)",
                        duration: Double(120 + index % 240), trackNumber: index - first + 1),
                    under: albumID)
            }
        }
        return snapshot
    }

    /// The same catalog as the node's JSON catalog format, for import-rate measurements from bytes.
    public static func json(items: Int, perAlbum: Int = 100) -> Data {
        var albums: [[String: Any]] = []
        let albumCount = (items + perAlbum - 1) / max(1, perAlbum)
        for album in 0..<albumCount {
            let first = album * perAlbum
            let tracks: [[String: Any]] = (first..<min(items, first + perAlbum)).map { index in
                [
                    "id": "track-\(index)", "title": "Track \(index)", "uri": "https://example.net/\(index).mp3",
                    "artist": "Artist \(album % 50)", "album": "Album \(album)", "duration": 120 + index % 240,
                    "trackNumber": index - first + 1,
                ]
            }
            albums.append(["id": "album-\(album)", "title": "Album \(album)", "children": tracks])
        }
        let document: [String: Any] = [
            "format": "medianode-catalog", "version": 1, "title": "Synthetic",
            "items": [["id": "albums", "title": "Albums", "children": albums]],
        ]
        return (try? JSONSerialization.data(withJSONObject: document)) ?? Data()
    }
}
