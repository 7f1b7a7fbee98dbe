import ContentTree
import Playback

extension ItemLoudness {
    init(_ stored: ContentLoudness) {
        self.init(track: stored.track, album: stored.album, trackPeak: stored.trackPeak, albumPeak: stored.albumPeak)
    }
}
