import Playback

/// The descriptive keys of now playing, from whichever source knows them: the catalog, the stream's
/// tags, or both merged. Every field is optional because keys the item lacks are omitted.
public struct NowPlayingMetadata: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var albumTitle: String?
    public var genre: String?
    public var releaseDate: String?
    public var composer: String?
    /// Counts from 1, as in MPNowPlayingInfo.
    public var albumTrackNumber: Int?
    public var albumTrackCount: Int?
    /// Counts from 1.
    public var discNumber: Int?
    public var discCount: Int?
    /// The chapter the audio is in, counting from 0, as in MPNowPlayingInfo.
    public var chapterNumber: Int?
    public var chapterCount: Int?
    public var chapterTitle: String?

    public init(
        title: String? = nil, artist: String? = nil, albumTitle: String? = nil, genre: String? = nil,
        releaseDate: String? = nil, composer: String? = nil, albumTrackNumber: Int? = nil,
        albumTrackCount: Int? = nil, discNumber: Int? = nil, discCount: Int? = nil,
        chapterNumber: Int? = nil, chapterCount: Int? = nil, chapterTitle: String? = nil
    ) {
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.genre = genre
        self.releaseDate = releaseDate
        self.composer = composer
        self.albumTrackNumber = albumTrackNumber
        self.albumTrackCount = albumTrackCount
        self.discNumber = discNumber
        self.discCount = discCount
        self.chapterNumber = chapterNumber
        self.chapterCount = chapterCount
        self.chapterTitle = chapterTitle
    }

    /// The now-playing keys a queue item has no field for, carried in its `userInfo` under their now-playing
    /// names: `userInfo` writes them, `init(item:)` reads them.
    public enum UserInfoKey: String, CaseIterable, Sendable {
        case genre, releaseDate, composer, albumTrackNumber, albumTrackCount, discNumber, discCount
    }

    /// What the catalog knows about a queue item: its own fields, plus the `UserInfoKey`s found in its
    /// `userInfo`. The chapter keys depend on where the audio is: see `NowPlayingInfo(snapshot:...)`.
    public init(item: QueueItem) {
        func text(_ key: UserInfoKey) -> String? { item.userInfo[key.rawValue] }
        func number(_ key: UserInfoKey) -> Int? { text(key).flatMap { Int($0) } }
        self.init(
            title: item.title, artist: item.artist, albumTitle: item.albumTitle, genre: text(.genre),
            releaseDate: text(.releaseDate), composer: text(.composer),
            albumTrackNumber: number(.albumTrackNumber), albumTrackCount: number(.albumTrackCount),
            discNumber: number(.discNumber), discCount: number(.discCount))
    }

    /// The values of the `UserInfoKey`s this metadata has, as a queue item's `userInfo` carries them.
    public var userInfo: [String: String] {
        var info: [String: String] = [:]
        for key in UserInfoKey.allCases {
            info[key.rawValue] = switch key {
            case .genre: genre
            case .releaseDate: releaseDate
            case .composer: composer
            case .albumTrackNumber: albumTrackNumber.map(String.init)
            case .albumTrackCount: albumTrackCount.map(String.init)
            case .discNumber: discNumber.map(String.init)
            case .discCount: discCount.map(String.init)
            }
        }
        return info
    }

    /// What the stream reported (GStreamer tag messages, ICY metadata).
    public init(tags: StreamTags) {
        self.init(
            title: tags.title, artist: tags.artist, albumTitle: tags.albumTitle, genre: tags.genre,
            releaseDate: tags.releaseDate, composer: tags.composer, albumTrackNumber: tags.albumTrackNumber,
            albumTrackCount: tags.albumTrackCount, discNumber: tags.discNumber, discCount: tags.discCount)
    }

    /// Without what a reader must not see: blank text and numbers outside their range (a tag's track
    /// number 0 means "unknown", not "the first").
    public var cleaned: NowPlayingMetadata {
        func text(_ value: String?) -> String? {
            guard let trimmed = value?.trimmingWhitespace, !trimmed.isEmpty else { return nil }
            return trimmed
        }
        func atLeast(_ minimum: Int, _ value: Int?) -> Int? { value.flatMap { $0 >= minimum ? $0 : nil } }
        return NowPlayingMetadata(
            title: text(title), artist: text(artist), albumTitle: text(albumTitle), genre: text(genre),
            releaseDate: text(releaseDate), composer: text(composer),
            albumTrackNumber: atLeast(1, albumTrackNumber), albumTrackCount: atLeast(1, albumTrackCount),
            discNumber: atLeast(1, discNumber), discCount: atLeast(1, discCount),
            chapterNumber: atLeast(0, chapterNumber), chapterCount: atLeast(1, chapterCount), chapterTitle: text(chapterTitle))
    }

    /// Keeps every key this one has and takes the rest from `other`: the catalog is curated, tags
    /// only fill its gaps.
    public func filling(from other: NowPlayingMetadata) -> NowPlayingMetadata {
        NowPlayingMetadata(
            title: title ?? other.title, artist: artist ?? other.artist, albumTitle: albumTitle ?? other.albumTitle,
            genre: genre ?? other.genre, releaseDate: releaseDate ?? other.releaseDate,
            composer: composer ?? other.composer, albumTrackNumber: albumTrackNumber ?? other.albumTrackNumber,
            albumTrackCount: albumTrackCount ?? other.albumTrackCount, discNumber: discNumber ?? other.discNumber,
            discCount: discCount ?? other.discCount, chapterNumber: chapterNumber ?? other.chapterNumber,
            chapterCount: chapterCount ?? other.chapterCount, chapterTitle: chapterTitle ?? other.chapterTitle)
    }

    /// Merges the catalog with the stream's tags. For a live stream the catalog's title names the
    /// station, so the stream's current title (ICY StreamTitle, often "Artist - Title") replaces the
    /// title and artist while the stream reports one.
    public static func merged(catalog: NowPlayingMetadata, tags: StreamTags, isLiveStream: Bool)
        -> NowPlayingMetadata {
        let fromTags = NowPlayingMetadata(tags: tags).cleaned
        var merged = catalog.cleaned.filling(from: fromTags)
        if isLiveStream, let streamTitle = fromTags.title {
            let split = splitStreamTitle(streamTitle)
            merged.title = split.title
            merged.artist = split.artist ?? fromTags.artist ?? merged.artist
        }
        return merged
    }

    /// Splits an ICY StreamTitle "Artist - Title" at its first " - "; without one it is all title.
    public static func splitStreamTitle(_ streamTitle: String) -> (artist: String?, title: String) {
        guard let separator = streamTitle.firstRange(of: " - ") else { return (nil, streamTitle) }
        let artist = String(streamTitle[..<separator.lowerBound]).trimmingWhitespace
        let title = String(streamTitle[separator.upperBound...]).trimmingWhitespace
        if artist.isEmpty || title.isEmpty { return (nil, streamTitle) }
        return (artist, title)
    }
}

extension String {
    /// Without leading and trailing white space; the target does without Foundation.
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
