import ContentTree
import RemoteCommands

extension RemoteCommandCenter {
    /// Reflects the current item's marks as `isActive` of like, dislike and bookmark. A mark's reply
    /// comes after `P/commands` shows it: whoever calls this marks `P/commands` dirty before replying.
    func showFeedback(_ marks: ItemFeedback) {
        setParameter("isActive", .bool(marks.liked), for: RemoteCommand.like)
        setParameter("isActive", .bool(marks.disliked), for: RemoteCommand.dislike)
        setParameter("isActive", .bool(marks.bookmarked), for: RemoteCommand.bookmark)
    }
}
