import ContentTree
import RemoteCommands

extension RemoteCommandCenter {
    /// Reflects the current item's marks as `isActive` of like, dislike and bookmark. A mark's reply
    /// comes after `P/commands` shows it: whoever calls this marks `P/commands` dirty before replying.
    func showFeedback(_ marks: ItemFeedback) {
        for (mark, active) in [(FeedbackMark.like, marks.liked), (.dislike, marks.disliked), (.bookmark, marks.bookmarked)] {
            setParameter("isActive", .bool(active), forCommandNamed: mark.rawValue)
        }
    }
}
