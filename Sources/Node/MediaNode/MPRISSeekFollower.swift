import MPRIS
import Playback

/// Tells MPRIS of every seek the playback controller makes, whoever asked for it (`Seeked`).
struct MPRISSeekFollower: PlaybackObserver {
    let player: MPRISPlayerObject

    func playbackReported(_ event: PlaybackEvent) async {
        if case let .seeked(_, position) = event { player.seeked(to: position) }
    }
}
