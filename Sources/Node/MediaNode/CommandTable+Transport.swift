import Playback
import RemoteCommands

// MARK: - Transport (S5, S8, S9) and interruptions

extension CommandTable {
    static let transport: [Entry] = [play, pause, stop, togglePlayPause, nextTrack, previousTrack, interrupt]

    static let play: Entry = PlainCommand("play", documentation: none("Starts or resumes playback (commandFailed while playing)."))
        .handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.play() }) }

    static let pause: Entry = PlainCommand("pause", documentation: none("Pauses (commandFailed while paused)."))
        .handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.pause() }) }

    static let stop: Entry = PlainCommand("stop", documentation: none("Stops playback and releases the queue (S8)."))
        .handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.stop() }) }

    static let togglePlayPause: Entry = PlainCommand(
        "togglePlayPause", documentation: none("Plays when paused, pauses when playing (S9).")
    ).handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.togglePlayPause() }) }

    static let nextTrack: Entry = PlainCommand("nextTrack", documentation: none("Skips to the next item in the queue."))
        .handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.nextTrack() }) }

    static let previousTrack: Entry = PlainCommand(
        "previousTrack", documentation: none("Goes to the previous item, or restarts the current one more than 3 s into it.")
    ).handled(by: \.playback) { _, playback in .result(await playback.perform { await $0.transport.previousTrack() }) }

    /// A command without payload fields.
    static func none(_ summary: String) -> CommandDocumentation { .init(payload: "none", summary: summary) }

    // MARK: - Interruptions

    static let interrupt: Entry = RemoteCommand<InterruptRequest>(
        "interrupt",
        fields: [.init("type", .choice(["begin", "end"]), required: true), .init("duck", .bool), .init("shouldResume", .bool)],
        documentation: .init(
            payload: "`type`: `begin` or `end`; `duck` (on begin: lower the volume instead of pausing); `shouldResume` (on end: resume if it was playing)",
            summary: "An audio interruption from the vehicle: begin (pause, or duck) and end (resume if asked).")
    ) { fields, _ in
        // Each field is type-checked whatever `type` says: `shouldResume: "yes"` on a begin is still wrong.
        let type = try fields.requiredString("type")
        let duck = try fields.optionalBool("duck") ?? false
        let shouldResume = try fields.optionalBool("shouldResume") ?? false
        switch type {
        case "begin": return .begin(duck: duck)
        case "end": return .end(shouldResume: shouldResume)
        case let other: throw CommandValidationError("'type' must be \"begin\" or \"end\", got \"\(other)\"")
        }
    }.handled(by: \.playback) { request, playback in
        switch request {
        case let .begin(duck): .result(await playback.perform { await $0.transport.beginInterruption(duck: duck) })
        case let .end(resume): .result(await playback.perform { await $0.transport.endInterruption(shouldResume: resume) })
        }
    }

}
