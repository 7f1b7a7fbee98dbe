/// What an announcement plays: a file, or text to speak.
public enum Clip: Sendable, Equatable {
    /// A local file (an announcement's URL is downloaded first, so a dead or endless one fails before
    /// the music is touched).
    case file(path: String)
    /// Text for the text-to-speech voice `language` ("en", "de"; nil: the voice's default).
    case speech(text: String, language: String?)
}

/// How a clip ended.
public enum ClipOutcome: Sendable, Equatable {
    case finished
    case cancelled
    case failed(String)
}

/// Plays announcement clips into the same output as the music, beside it: whatever the music does
/// (plays, pauses, seeks, changes item) the clip goes on, and the music's position, gapless switches and
/// rate are never touched by it.
public protocol ClipPlayer: AnyObject, Sendable {
    /// Whether `.speech` clips can be played here (the text-to-speech voice is installed).
    var canSpeak: Bool { get }
    /// Plays `clip` at output amplitude `amplitude` (0...1), heard even while the music is muted, and
    /// returns once it ended. `started` is called when its first audio reaches the output. Cancelling the
    /// calling task stops it at once (`.cancelled`).
    func play(_ clip: Clip, amplitude: Double, started: @escaping @Sendable () -> Void) async -> ClipOutcome
}
