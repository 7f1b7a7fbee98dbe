// MARK: - Chapters of an item (an audiobook's, a long episode's)

extension QueueItem {
    /// One chapter: where it starts and what it is called.
    public struct Chapter: Sendable, Hashable {
        public var title: String
        /// Seconds from the start of the item.
        public var startTime: Double

        public init(title: String, startTime: Double) {
            self.title = title
            self.startTime = startTime
        }
    }
}

extension [QueueItem.Chapter] {
    /// The chapter the audio is in at `position` (seconds): the last one that has started; audio before the
    /// first start counts as the first chapter. Nil for no chapters. The list is in order of start.
    public func index(at position: Double) -> Int? {
        guard !isEmpty else { return nil }
        // The last start <= position, by halves: a book may have hundreds of chapters.
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if self[middle].startTime <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The start of the first chapter after `position`; nil when none is ahead.
    public func start(after position: Double) -> Double? {
        guard let current = index(at: position) else { return nil }
        let next = self[current].startTime > position ? current : current + 1
        return next < count ? self[next].startTime : nil
    }
}

extension PlaybackSnapshot {
    /// Seconds from `now` until the audio crosses into the next chapter at the rate it advances now; nil while
    /// it does not advance (paused, a seek landing), or when no chapter is ahead within the item.
    public func secondsToNextChapter(at now: Double) -> Double? {
        guard playbackRate > 0, let chapters = item?.chapters, !chapters.isEmpty else { return nil }
        let position = elapsed(at: now)
        guard let next = chapters.start(after: position) else { return nil }
        if let duration, next >= duration { return nil }
        return (next - position) / playbackRate
    }
}
