import MediaNode
import Playback
import RemoteCommands

/// The node's command table's definitions by name, typed, for tests that register handlers or decode
/// payloads themselves (`center.addHandler(for: .nextTrack)`). Each is looked up in `CommandTable`: a name
/// the table lacks stops the test at once.
extension RemoteCommand {
    static func table(_ name: String) -> Self {
        guard let command = CommandTable.command(named: name, as: Arguments.self) else {
            preconditionFailure("no command \(name) taking \(Arguments.self) in the command table")
        }
        return command
    }
}

extension RemoteCommandCenter {
    /// A center for the node's command table, with no handlers.
    public convenience init(capabilities: CommandCapabilities = .init()) {
        self.init(capabilities: capabilities, commands: CommandTable.commands)
    }
}

extension RemoteCommand where Arguments == Void {
    public static var play: Self { table("play") }
    public static var pause: Self { table("pause") }
    public static var stop: Self { table("stop") }
    public static var togglePlayPause: Self { table("togglePlayPause") }
    public static var nextTrack: Self { table("nextTrack") }
    public static var previousTrack: Self { table("previousTrack") }
}

extension RemoteCommand where Arguments == Double {
    /// The interval in seconds, the first preferred one when the request names none.
    public static var skipForward: Self { table("skipForward") }
    public static var skipBackward: Self { table("skipBackward") }
    public static var rating: Self { table("rating") }
}

extension RemoteCommand where Arguments == SeekCommandType {
    public static var seekForward: Self { table("seekForward") }
    public static var seekBackward: Self { table("seekBackward") }
}

extension RemoteCommand where Arguments == PositionRequest {
    public static var changePlaybackPosition: Self { table("changePlaybackPosition") }
}

extension RemoteCommand where Arguments == PlaybackRateRequest {
    public static var changePlaybackRate: Self { table("changePlaybackRate") }
}

extension RemoteCommand where Arguments == RepeatType {
    public static var changeRepeatMode: Self { table("changeRepeatMode") }
}

extension RemoteCommand where Arguments == ShuffleType {
    public static var changeShuffleMode: Self { table("changeShuffleMode") }
}

extension RemoteCommand where Arguments == Bool {
    public static var like: Self { table("like") }
    public static var dislike: Self { table("dislike") }
    public static var bookmark: Self { table("bookmark") }
    public static var mute: Self { table("mute") }
}

extension RemoteCommand where Arguments == LanguageOptionRequest {
    public static var enableLanguageOption: Self { table("enableLanguageOption") }
    public static var disableLanguageOption: Self { table("disableLanguageOption") }
}

extension RemoteCommand where Arguments == ContentReference {
    public static var playItem: Self { table("playItem") }
}

extension RemoteCommand where Arguments == [String] {
    public static var prepareQueue: Self { table("prepareQueue") }
}

extension RemoteCommand where Arguments == BrowseRequest {
    public static var browse: Self { table("browse") }
}

extension RemoteCommand where Arguments == String {
    public static var contentItem: Self { table("contentItem") }
}

extension RemoteCommand where Arguments == SearchRequest {
    public static var search: Self { table("search") }
}

extension RemoteCommand where Arguments == InterruptRequest {
    public static var interrupt: Self { table("interrupt") }
}

extension RemoteCommand where Arguments == VolumeRequest {
    public static var changeVolume: Self { table("changeVolume") }
}

extension RemoteCommand where Arguments == QueueAddRequest {
    public static var addToQueue: Self { table("addToQueue") }
}

extension RemoteCommand where Arguments == Int {
    public static var removeFromQueue: Self { table("removeFromQueue") }
    public static var skipToChapter: Self { table("skipToChapter") }
}

extension RemoteCommand where Arguments == QueueMoveRequest {
    public static var moveQueueItem: Self { table("moveQueueItem") }
}

extension RemoteCommand where Arguments == DownloadRequest {
    public static var download: Self { table("download") }
}

extension RemoteCommand where Arguments == AnnounceRequest {
    public static var announce: Self { table("announce") }
}

extension RemoteCommand where Arguments == SleepTimerRequest {
    public static var setSleepTimer: Self { table("setSleepTimer") }
}
