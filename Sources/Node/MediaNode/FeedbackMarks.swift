import ContentTree
import Playback
import RemoteCommands

/// like, dislike, bookmark and rating of what plays: the mark kept in the feedback book (the catalog file)
/// and shown as the command's `isActive` in `P/commands` before the reply.
struct FeedbackMarks: Sendable {
    let playback: PlaybackController
    let book: FeedbackBook
    let commandCenter: RemoteCommandCenter
    let capabilities: CapabilitiesPublisher

    func mark(_ mark: FeedbackMark, active: Bool) async -> CommandResult {
        guard let identifier = await playback.snapshot.item?.identifier else {
            return CommandResult(.noActionableNowPlayingItem, message: "nothing is playing to mark")
        }
        do {
            commandCenter.showFeedback(try await book.set(mark, active: active, for: identifier))
            capabilities.mark()
            return .success
        } catch {
            return .failed("could not save the mark: \(error)")
        }
    }

    func rate(_ value: Double) async -> CommandResult {
        guard let identifier = await playback.snapshot.item?.identifier else {
            return CommandResult(.noActionableNowPlayingItem, message: "nothing is playing to rate")
        }
        do {
            try await book.setRating(value, for: identifier)
            return .success
        } catch {
            return .failed("could not save the rating: \(error)")
        }
    }
}
