// MARK: - Loudness: each item's own gain, given to the engine with its load

extension OutputLevel {
    /// Looks up the loudness of `item` and gives the engine the gain for the load or preload under `token`,
    /// which the engine applies from the moment that item is heard. A live stream plays unlevelled: it has
    /// no loudness until it has played, and a station's programme changes loudness from one item to the
    /// next anyway. `asAlbum`: the item plays among its album's tracks in their order, so album gain keeps
    /// their loudness relative to each other, as mastered. Returns the item's track loudness (LUFS), for
    /// now playing. Call before the load or preload that names `token`.
    func giveItemGain(to item: QueueItem, asAlbum: Bool, token: PlaybackToken) async -> Double? {
        guard let loudnessSource else { return nil }
        let loudness = item.isLiveStream ? nil : await loudnessSource.loudness(ofURI: item.uri)
        await engine.setItemGain(levelling.gain(for: loudness, asAlbum: asAlbum), for: token)
        return loudness?.track
    }
}
