import Playback
import RemoteCommands

extension RepeatMode {
    init(_ type: RepeatType) {
        switch type {
        case .off: self = .off
        case .one: self = .one
        case .all: self = .all
        }
    }
}
