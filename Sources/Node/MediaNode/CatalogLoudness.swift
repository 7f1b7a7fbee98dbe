import CatalogStore
import Playback

/// The controller's loudness source on the catalog file: what the scan read from tags and the analyser
/// measured, asked at each load (one indexed read).
struct CatalogLoudness: LoudnessSource {
    let database: CatalogDatabase

    func loudness(ofURI uri: String) async -> ItemLoudness? {
        // A read that fails plays the item unlevelled: loudness never stops playback.
        guard let stored = try? database.loudness(ofURI: uri) else { return nil }
        return ItemLoudness(stored)
    }
}
