import Playback
import RemoteCommands

extension ShuffleMode {
    init(_ type: ShuffleType) {
        switch type {
        case .off: self = .off
        case .items: self = .items
        case .collections: self = .collections
        }
    }
}
