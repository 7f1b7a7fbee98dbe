import ContentTree
import MediaJSON
import RemoteCommands

// MARK: - Feedback (S7): rating, like, dislike, bookmark

extension CommandTable {
    static let feedback: [Entry] = [rating, like, dislike, bookmark]

    static let rating: Entry = RemoteCommand<Double>(
        "rating", fields: [.init("rating", .number, required: true)],
        documentation: .init(
            payload: "`rating`: a number within `minimumRating`...`maximumRating`",
            summary: "Rates the current item within minimumRating...maximumRating."),
        parameters: { ["minimumRating": .number($0.minimumRating), "maximumRating": .number($0.maximumRating)] }
    ) { fields, capabilities in
        let value = try fields.requiredNumber("rating")
        guard value >= capabilities.minimumRating, value <= capabilities.maximumRating else {
            throw CommandValidationError("'rating' must be within \(quote(capabilities.minimumRating))..."
                + "\(quote(capabilities.maximumRating)), got \(quote(value))")
        }
        return value
    }.handled(by: \.marks) { value, marks in await marks.rate(value) }

    static let like: Entry = mark(.like, "Marks the current item liked (isNegative removes the mark).")
    static let dislike: Entry = mark(.dislike, "Marks the current item disliked (isNegative removes the mark).")
    static let bookmark: Entry = mark(.bookmark, "Bookmarks the current item (isNegative removes the bookmark).")

    /// A mark of the current item, named as the command (`isActive` in `P/commands` shows it for what plays).
    private static func mark(_ mark: FeedbackMark, _ summary: String) -> Entry {
        let name = mark.rawValue
        return RemoteCommand<Bool>(
            name, fields: [.init("isNegative", .bool, schema: ["default": false])],
            documentation: .init(payload: "`isNegative` (boolean, default false; true removes the mark)", summary: summary),
            initialParameters: ["isActive": false],
            parameters: { capabilities in
                capabilities.feedbackTitles[name].map {
                    ["localizedTitle": .string($0.title), "localizedShortTitle": .string($0.shortTitle)]
                } ?? [:]
            }
        ) { fields, _ in try fields.optionalBool("isNegative") ?? false }
            .handled(by: \.marks) { isNegative, marks in await marks.mark(mark, active: !isNegative) }
    }
}
