// MARK: - Loudness: each item's own gain, given to the engine with its load

extension PlaybackController {
    /// Looks up the loudness of the item at `original` (its index in the queue as given) and gives the
    /// engine the gain for the load or preload under `token`, which the engine applies from the moment
    /// that item is heard. A live stream plays unlevelled: it has no loudness until it has played, and a
    /// station's programme changes loudness from one item to the next anyway. Caller holds the turn.
    ///
    /// The item's title goes with it, for a sound server's stream name.
    func giveItemGain(toOriginal original: Int, token: PlaybackToken) async {
        guard queue.items.indices.contains(original) else { return }
        let item = queue.items[original]
        await engine.setItemTitle(item.title, for: token)
        guard let loudnessSource else { return }
        let loudness = item.isLiveStream ? nil : await loudnessSource.loudness(ofURI: item.uri)
        itemLoudness[token] = loudness?.track
        await engine.setItemGain(levelling.gain(for: loudness, asAlbum: playsAsAlbum(original)), for: token)
    }

    /// An album plays in its order: not shuffled item by item, and a neighbour in play order comes from the
    /// same container. Then album gain keeps its tracks' loudness relative to each other, as mastered.
    func playsAsAlbum(_ original: Int) -> Bool {
        guard queue.shuffleMode != .items, let container = queue.items[original].containerIdentifier,
              let position = queue.order.firstIndex(of: original)
        else { return false }
        return [position - 1, position + 1].contains { neighbour in
            queue.order.indices.contains(neighbour) && queue.items[queue.order[neighbour]].containerIdentifier == container
        }
    }

    /// The loudness of the item now playing, as now playing shows it.
    var currentLoudness: Double? { currentToken.flatMap { itemLoudness[$0] } }

    /// Forgets the loudness of loads that can no longer play.
    func forgetItemLoudness(before token: PlaybackToken) {
        itemLoudness = itemLoudness.filter { $0.key >= token }
    }
}
