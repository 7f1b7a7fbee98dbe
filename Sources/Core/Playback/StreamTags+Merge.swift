extension StreamTags {
    /// Takes every field `other` carries; keeps the rest (tag messages arrive piecemeal).
    mutating func merge(_ other: StreamTags) {
        title = other.title ?? title
        artist = other.artist ?? artist
        albumTitle = other.albumTitle ?? albumTitle
        genre = other.genre ?? genre
        composer = other.composer ?? composer
        releaseDate = other.releaseDate ?? releaseDate
        albumTrackNumber = other.albumTrackNumber ?? albumTrackNumber
        albumTrackCount = other.albumTrackCount ?? albumTrackCount
        discNumber = other.discNumber ?? discNumber
        discCount = other.discCount ?? discCount
        if let image = other.image {
            self.image = image
            imageMimeType = other.imageMimeType
        }
    }
}
