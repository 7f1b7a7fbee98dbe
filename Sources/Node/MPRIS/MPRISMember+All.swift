import DBusBinding
import MediaJSON
import RemoteCommands

// MARK: - The one map from MPRIS to the node

extension MPRISMember {
    /// Every member the node serves, MPRIS 2.2's root, Player and TrackList interfaces, each with the
    /// command it performs or the published state it reads. A command's name comes from its command table
    /// entry; the state's keys are those of `P/nowplaying`, `P/queue`, `P/volume` and `P/commands`.
    public static let all: [MPRISMember] = root + player + trackList

    /// The commands no MPRIS member performs, and why: with the members' own, every command of the table.
    public static let notOnMPRIS: [String: String] = [
        RemoteCommand.seekForward.name: "MPRIS has no held seek button; Seek moves by an offset",
        RemoteCommand.seekBackward.name: "MPRIS has no held seek button; Seek moves by an offset",
        RemoteCommand.rating.name: "MPRIS has no rating method",
        RemoteCommand.like.name: "MPRIS has no feedback marks",
        RemoteCommand.dislike.name: "MPRIS has no feedback marks",
        RemoteCommand.bookmark.name: "MPRIS has no feedback marks",
        RemoteCommand.enableLanguageOption.name: "MPRIS has no audio language choice",
        RemoteCommand.disableLanguageOption.name: "MPRIS has no audio language choice",
        RemoteCommand.prepareQueue.name: "MPRIS loads only by OpenUri, which plays",
        RemoteCommand.browse.name: "browsing is MediaPlayer2.Playlists' or MQTT's, not the Player's",
        RemoteCommand.contentItem.name: "browsing is MQTT's",
        RemoteCommand.search.name: "MPRIS has no search",
        RemoteCommand.interrupt.name: "interruptions come from the car's audio policy, not a media controller",
        RemoteCommand.mute.name: "MPRIS has Volume only; a client mutes by setting it to 0",
        RemoteCommand.addToQueue.name: "CanEditTracks is false: AddTrack names a URI, the queue holds catalog items",
        RemoteCommand.removeFromQueue.name: "CanEditTracks is false",
        RemoteCommand.moveQueueItem.name: "MPRIS cannot move a track",
        RemoteCommand.download.name: "MPRIS has no offline copies",
        RemoteCommand.announce.name: "announcements are the car's, over MQTT",
        RemoteCommand.skipToChapter.name: "MPRIS has no chapters",
    ]

    // MARK: org.mpris.MediaPlayer2

    static let root: [MPRISMember] = [
        .method(MPRISNames.root, "Raise") { _ in .nothing },
        .method(MPRISNames.root, "Quit") { _ in .nothing },
        .property(MPRISNames.root, "CanQuit", "b") { _, _ in .bool(false) },
        .property(MPRISNames.root, "CanRaise", "b") { _, _ in .bool(false) },
        .property(MPRISNames.root, "HasTrackList", "b") { _, _ in .bool(true) },
        .property(MPRISNames.root, "Identity", "s") { _, _ in .string("MediaNode") },
        .property(MPRISNames.root, "SupportedUriSchemes", "as") { _, _ in .strings(["file", "http", "https"]) },
        .property(MPRISNames.root, "SupportedMimeTypes", "as") { _, _ in
            .strings(["audio/aac", "audio/flac", "audio/mp4", "audio/mpeg", "audio/ogg", "audio/opus", "audio/wav",
                      "audio/x-wav", "audio/x-vorbis+ogg", "audio/x-flac"])
        },
    ]

    // MARK: org.mpris.MediaPlayer2.Player

    static let player: [MPRISMember] = playerMethods + playerProperties + [
        .signal(MPRISNames.player, "Seeked", [Argument("Position", "x")]),
    ]

    static let playerMethods: [MPRISMember] = [
        plain("Next", RemoteCommand.nextTrack), plain("Previous", RemoteCommand.previousTrack),
        plain("Pause", RemoteCommand.pause), plain("PlayPause", RemoteCommand.togglePlayPause),
        plain("Stop", RemoteCommand.stop), plain("Play", RemoteCommand.play),
        .method(MPRISNames.player, "Seek", [Argument("Offset", "x")],
                commands: [RemoteCommand.skipForward.name, RemoteCommand.skipBackward.name]) { arguments in
            guard case let .int64(offset)? = arguments.first else { return .refused("Seek takes an offset in µs") }
            guard offset != 0 else { return .nothing }
            let seconds = abs(Double(offset)) / 1_000_000
            return .command(offset > 0 ? RemoteCommand.skipForward.name : RemoteCommand.skipBackward.name,
                            ["interval": .number(seconds)])
        },
        .method(MPRISNames.player, "SetPosition", [Argument("TrackId", "o"), Argument("Position", "x")],
                commands: [RemoteCommand.changePlaybackPosition.name]) { arguments in
            guard arguments.count == 2, case let .objectPath(track) = arguments[0], case let .int64(position) = arguments[1]
            else { return .refused("SetPosition takes a track id and a position in µs") }
            // A path that is no track id of the node is passed on as it is: the command center answers that it is
            // not the current item, as it does for an unknown identifier over MQTT.
            return .command(RemoteCommand.changePlaybackPosition.name, [
                "positionTime": .number(MPRISTime.seconds(position)),
                "identifier": .string(MPRISTrackID.identifier(of: track) ?? track),
            ])
        },
        .method(MPRISNames.player, "OpenUri", [Argument("Uri", "s")], commands: [RemoteCommand.playItem.name]) { arguments in
            guard case let .string(uri)? = arguments.first else { return .refused("OpenUri takes a URI") }
            return .command(RemoteCommand.playItem.name, ["url": .string(uri)])
        },
    ]

    static let playerProperties: [MPRISMember] = [
        .property(MPRISNames.player, "PlaybackStatus", "s") { inputs, _ in
            switch inputs.nowPlaying["state"]?.stringValue {
            case "playing": .string("Playing")
            case "paused", "interrupted": .string("Paused")
            default: .string("Stopped")
            }
        },
        .property(MPRISNames.player, "LoopStatus", "s", commands: [RemoteCommand.changeRepeatMode.name], write: { value in
            let modes = ["None": "off", "Track": "one", "Playlist": "all"]
            guard let status = value.stringValue, let mode = modes[status] else {
                return .refused("LoopStatus must be None, Track or Playlist, not \(value.stringValue.map { "'\($0)'" } ?? value.signature)")
            }
            return .command(RemoteCommand.changeRepeatMode.name, ["repeatType": .string(mode)])
        }) { inputs, _ in
            switch inputs.queue["repeatMode"]?.stringValue {
            case "one": .string("Track")
            case "all": .string("Playlist")
            default: .string("None")
            }
        },
        .property(MPRISNames.player, "Shuffle", "b", commands: [RemoteCommand.changeShuffleMode.name], write: { value in
            guard case let .bool(on) = value else { return .refused("Shuffle is a boolean") }
            return .command(RemoteCommand.changeShuffleMode.name, ["shuffleType": .string(on ? "items" : "off")])
        }) { inputs, _ in .bool((inputs.queue["shuffleMode"]?.stringValue ?? "off") != "off") },
        .property(MPRISNames.player, "Rate", "d",
                  commands: [RemoteCommand.changePlaybackRate.name, RemoteCommand.pause.name], write: { value in
            guard case let .double(rate) = value else { return .refused("Rate is a double") }
            // MPRIS: a client that sets 0 asks for a pause.
            if rate == 0 { return .command(RemoteCommand.pause.name, [:]) }
            return .command(RemoteCommand.changePlaybackRate.name, ["playbackRate": .number(rate)])
        }) { inputs, _ in .double(inputs.playback?.rate ?? 1) },
        .property(MPRISNames.player, "Metadata", "a{sv}") { inputs, _ in .vardict(MPRISMetadata.current(inputs)) },
        .property(MPRISNames.player, "Volume", "d", commands: [RemoteCommand.changeVolume.name], write: { value in
            guard case let .double(level) = value else { return .refused("Volume is a double") }
            // MPRIS: a negative volume means 0; above 1 the command center says what it accepts.
            return .command(RemoteCommand.changeVolume.name, ["volume": .number(max(0, level))])
        }) { inputs, _ in .double(inputs.volume["volume"]?.numberValue ?? 1) },
        .property(MPRISNames.player, "Position", "x", change: .never) { inputs, now in .int64(inputs.position(at: now)) },
        .property(MPRISNames.player, "MinimumRate", "d") { inputs, _ in .double(headUnitRates(inputs).min() ?? 1) },
        .property(MPRISNames.player, "MaximumRate", "d") { inputs, _ in .double(headUnitRates(inputs).max() ?? 1) },
        enabled("CanGoNext", RemoteCommand.nextTrack), enabled("CanGoPrevious", RemoteCommand.previousTrack),
        enabled("CanPlay", RemoteCommand.play), enabled("CanPause", RemoteCommand.pause),
        enabled("CanSeek", RemoteCommand.changePlaybackPosition),
        // Whether the player can be driven at all: the one transport command every playing node has.
        .property(MPRISNames.player, "CanControl", "b", change: .never) { inputs, _ in
            .bool(inputs.isEnabled(RemoteCommand.togglePlayPause.name))
        },
    ]

    // MARK: org.mpris.MediaPlayer2.TrackList

    static let trackList: [MPRISMember] = [
        .method(MPRISNames.trackList, "GetTracksMetadata", [Argument("TrackIds", "ao")],
                results: [Argument("Metadata", "aa{sv}")]) { arguments in
            guard case let .array(_, paths)? = arguments.first else { return .refused("GetTracksMetadata takes track ids") }
            return .tracksMetadata(paths.compactMap(\.stringValue))
        },
        .method(MPRISNames.trackList, "AddTrack",
                [Argument("Uri", "s"), Argument("AfterTrack", "o"), Argument("SetAsCurrent", "b")]) { _ in
            .refused("CanEditTracks is false: the queue is edited with addToQueue over MQTT")
        },
        .method(MPRISNames.trackList, "RemoveTrack", [Argument("TrackId", "o")]) { _ in
            .refused("CanEditTracks is false: the queue is edited with removeFromQueue over MQTT")
        },
        .method(MPRISNames.trackList, "GoTo", [Argument("TrackId", "o")], commands: [RemoteCommand.playItem.name]) { arguments in
            guard case let .objectPath(track)? = arguments.first else { return .refused("GoTo takes a track id") }
            guard let identifier = MPRISTrackID.identifier(of: track) else {
                return .refused("\(track) is not a track of this player's track list")
            }
            return .command(RemoteCommand.playItem.name, ["identifier": .string(identifier)])
        },
        .property(MPRISNames.trackList, "Tracks", "ao", change: .invalidates) { inputs, _ in
            .array(elementSignature: "o", inputs.trackIDs.map(DBusValue.objectPath))
        },
        .property(MPRISNames.trackList, "CanEditTracks", "b") { _, _ in .bool(false) },
        .signal(MPRISNames.trackList, "TrackListReplaced", [Argument("Tracks", "ao"), Argument("CurrentTrack", "o")]),
        .signal(MPRISNames.trackList, "TrackAdded", [Argument("Metadata", "a{sv}"), Argument("AfterTrack", "o")]),
        .signal(MPRISNames.trackList, "TrackRemoved", [Argument("TrackId", "o")]),
        .signal(MPRISNames.trackList, "TrackMetadataChanged", [Argument("TrackId", "o"), Argument("Metadata", "a{sv}")]),
    ]

    // MARK: - Helpers

    /// A method without arguments that performs a command without payload.
    private static func plain(_ name: String, _ command: PlainCommand) -> MPRISMember {
        let commandName = command.name
        return .method(MPRISNames.player, name, commands: [commandName]) { _ in .command(commandName, [:]) }
    }

    /// A `Can...` property: whether `P/commands` shows the command enabled.
    private static func enabled(_ name: String, _ command: some AnyRemoteCommand) -> MPRISMember {
        let commandName = command.name
        return .property(MPRISNames.player, name, "b") { inputs, _ in .bool(inputs.isEnabled(commandName)) }
    }

    /// The rates a head unit shows (`supportedPlaybackRates`), which bound MPRIS's `Rate`.
    private static func headUnitRates(_ inputs: MPRISInputs) -> [Double] {
        inputs.commands[RemoteCommand.changePlaybackRate.name]?["supportedPlaybackRates"]?.arrayValue?
            .compactMap(\.numberValue) ?? []
    }
}
