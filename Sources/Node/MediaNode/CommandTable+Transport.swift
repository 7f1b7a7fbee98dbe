import Playback
import RemoteCommands

// MARK: - Transport (S5, S8, S9), interruptions and the sleep timer

extension CommandTable {
    static let transport: [Entry] = [play, pause, stop, togglePlayPause, nextTrack, previousTrack, interrupt, setSleepTimer]

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

    // MARK: - The sleep timer (a MediaNode addition)

    static let setSleepTimer: Entry = RemoteCommand<SleepTimerRequest>(
        "setSleepTimer", availability: .withItem,
        fields: [
            .init("minutes", .number, schema: ["exclusiveMinimum": 0, "maximum": 1440, "description": "Pause this many minutes from now."]),
            .init("endOfItem", .bool, schema: ["const": true, "description": "Pause when the item playing ends, at the next item's start."]),
            .init("fadeOut", .number, schema: [
                "minimum": 0, "maximum": 60, "default": .number(SleepTimerRequest.defaultFadeOut),
                "description": "Seconds over which the music fades out before it pauses.",
            ]),
            .init("cancel", .bool, schema: ["const": true, "description": "Takes back the timer set before; comes alone."]),
        ],
        documentation: .init(
            payload: "exactly one of `minutes` (more than 0, at most 1440) or `endOfItem: true`, with optional `fadeOut` (seconds 0...60, default 10); or `cancel: true` alone. A MediaNode addition (see \"Sleep timer\")",
            summary: "Fades the music out and pauses it after some minutes or at the end of the item playing; cancel takes it back. Shown in now playing as sleepTimer. A MediaNode addition.",
            atLeastOneOf: ["minutes", "endOfItem", "cancel"],
            request: "Exactly one of minutes, endOfItem or cancel (the node refuses more than one, saying which).")
    ) { fields, _ in
        let minutes = try fields.optionalNumber("minutes")
        let endOfItem = try fields.optionalBool("endOfItem")
        let fadeOut = try fields.optionalNumber("fadeOut")
        let cancel = try fields.optionalBool("cancel")
        if let cancel {
            guard cancel else { throw CommandValidationError("'cancel' can only be true") }
            guard minutes == nil, endOfItem == nil, fadeOut == nil else {
                throw CommandValidationError("'cancel' comes alone, without 'minutes', 'endOfItem' or 'fadeOut'")
            }
            return .cancel
        }
        let fade = fadeOut ?? SleepTimerRequest.defaultFadeOut
        guard fade >= 0, fade <= 60 else { throw CommandValidationError("'fadeOut' must be within 0...60 seconds, got \(quote(fade))") }
        switch (minutes, endOfItem) {
        case let (minutes?, nil):
            guard minutes > 0, minutes <= 1440 else {
                throw CommandValidationError("'minutes' must be more than 0 and at most 1440, got \(quote(minutes))")
            }
            return .after(seconds: minutes * 60, fadeOut: fade)
        case (nil, true?): return .endOfItem(fadeOut: fade)
        case (nil, false?): throw CommandValidationError("'endOfItem' can only be true")
        case (nil, nil): throw CommandValidationError("missing field: one of 'minutes', 'endOfItem' or 'cancel'")
        case (_?, _?): throw CommandValidationError("exactly one of 'minutes' or 'endOfItem', got both")
        }
    }.handled(by: \.playback) { request, playback in .result(await playback.setSleepTimer(request)) }
}
