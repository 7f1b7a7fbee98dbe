import DBusBinding
@testable import MPRIS
import MediaJSON
import NowPlaying
import Playback
import RemoteCommands
import Testing

/// The one map from MPRIS to the node, checked against the command table and now playing's keys, and what
/// each member does, without a bus.
@Suite("MPRIS mapping")
struct MPRISMappingTests {
    @Test("every command of the table is performed by an MPRIS member or said not to be, never both")
    func everyCommandIsAccountedFor() {
        let performed = Set(MPRISMember.all.flatMap(\.commands))
        let excluded = Set(MPRISMember.notOnMPRIS.keys)
        let table = Set(CommandTable.names)
        #expect(performed.isDisjoint(with: excluded), "both performed and excluded: \(performed.intersection(excluded))")
        #expect(table.subtracting(performed).subtracting(excluded).isEmpty,
                "commands MPRIS neither performs nor excludes: \(table.subtracting(performed).subtracting(excluded).sorted())")
        #expect(performed.union(excluded).subtracting(table).isEmpty, "names not in the table: \(performed.union(excluded).subtracting(table))")
    }

    @Test("every key now playing can carry is shown in Metadata or said to be shown elsewhere; no stale keys")
    func everyNowPlayingKeyIsAccountedFor() {
        var info = NowPlayingInfo(
            state: .playing, timestamp: 1, elapsedPlaybackTime: 2, playbackRate: 1, defaultPlaybackRate: 1,
            playbackDuration: 3,
            metadata: NowPlayingMetadata(
                title: "t", artist: "a", albumTitle: "l", genre: "g", releaseDate: "2024", composer: "c",
                albumTrackNumber: 1, albumTrackCount: 2, discNumber: 1, discCount: 1, chapterNumber: 0, chapterCount: 2,
                chapterTitle: "Opening"),
            playbackQueueIndex: 0, playbackQueueCount: 1, isLiveStream: false, identifier: "track:1",
            nowPlayingIdentifiers: ["album:1", "track:1"], artwork: NowPlayingArtwork(topic: "p/artwork/k", mimeType: "image/jpeg"),
            repeatMode: .all, shuffleMode: .items)
        info.loudness = -18
        let keys = Set(info.json.objectValue?.keys.map { $0 } ?? [])
        let mapped = Set(MPRISMetadata.keys.keys)
        #expect(keys.subtracting(mapped).isEmpty, "now playing keys MPRIS does not account for: \(keys.subtracting(mapped).sorted())")
        #expect(mapped.subtracting(keys).isEmpty, "mapped keys now playing never carries: \(mapped.subtracting(keys).sorted())")
    }

    @Test("the introspection data made from the members is what GDBus accepts, with every interface")
    func introspectionParses() async throws {
        let xml = MPRISMember.introspection(of: MPRISMember.all)
        let loop = BusLoop(name: "test.introspection")
        defer { Task { await loop.stop() } }
        _ = try BusPresence(address: .session, name: "org.example.Test", path: "/", introspection: xml,
                            handler: NoHandler(), loop: loop, logger: .init(label: "test"))
        for interface in [MPRISNames.root, MPRISNames.player, MPRISNames.trackList] {
            #expect(xml.contains("<interface name=\"\(interface)\">"))
        }
        #expect(xml.contains(#"<property name="Volume" type="d" access="readwrite"/>"#))
        #expect(xml.contains(#"<property name="Position" type="x" access="read">"#), "Position carries EmitsChangedSignal false")
    }

    @Test("the bus name is the node id with other characters as _, never starting with a digit")
    func busName() {
        #expect(MPRISNames.busName(nodeID: "car1") == "org.mpris.MediaPlayer2.medianode.car1")
        #expect(MPRISNames.busName(nodeID: "car-1.b") == "org.mpris.MediaPlayer2.medianode.car_1_b")
        #expect(MPRISNames.busName(nodeID: "1car") == "org.mpris.MediaPlayer2.medianode._1car")
    }

    @Test("track ids round-trip any identifier; an identifier queued twice gets its occurrence")
    func trackIDs() {
        let identifiers = ["track:1", "", "_", "a/b c", "Zürich ♪", "track:1", "track:1"]
        let paths = MPRISTrackID.paths(for: identifiers)
        #expect(Set(paths).count == paths.count, "unique: \(paths)")
        for (path, identifier) in zip(paths, identifiers) {
            #expect(path.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_/".contains($0)) }, "\(path)")
            #expect(MPRISTrackID.identifier(of: path) == identifier)
        }
        #expect(paths[5].hasSuffix("/2") && paths[6].hasSuffix("/3"))
        #expect(MPRISTrackID.identifier(of: "/org/mpris/MediaPlayer2/TrackList/NoTrack") == nil)
        #expect(MPRISTrackID.identifier(of: MPRISTrackID.prefix + "_zz") == nil, "a broken escape names nothing")
    }

    @Test("Seek moves by its offset with skipForward or skipBackward; 0 does nothing; no offset traps")
    func seek() {
        #expect(act("Seek", [.int64(2_500_000)]) == .command("skipForward", ["interval": 2.5]))
        #expect(act("Seek", [.int64(-1_000_000)]) == .command("skipBackward", ["interval": 1]))
        #expect(act("Seek", [.int64(0)]) == .nothing)
        #expect(act("Seek", [.int64(.min)]) == .command("skipBackward", ["interval": .number(Double(Int64.min).magnitude / 1e6)]))
        #expect(act("Seek", [.string("x")]) == .refused("Seek takes an offset in µs"))
    }

    @Test("SetPosition names the entry by its identifier; a foreign path is passed on for the center to refuse")
    func setPosition() {
        let path = MPRISTrackID.paths(for: ["track:9"])[0]
        #expect(act("SetPosition", [.objectPath(path), .int64(3_000_000)])
            == .command("changePlaybackPosition", ["positionTime": 3, "identifier": "track:9"]))
        #expect(act("SetPosition", [.objectPath("/elsewhere"), .int64(0)])
            == .command("changePlaybackPosition", ["positionTime": 0, "identifier": "/elsewhere"]))
    }

    @Test("writes: LoopStatus, Shuffle, Rate (0 pauses) and Volume (negative is 0) are commands; unknown values are refused")
    func writes() {
        #expect(write("LoopStatus", .string("Track")) == .command("changeRepeatMode", ["repeatType": "one"]))
        #expect(write("LoopStatus", .string("None")) == .command("changeRepeatMode", ["repeatType": "off"]))
        if case .refused = write("LoopStatus", .string("Sometimes")) {} else { Issue.record("Sometimes is no LoopStatus") }
        #expect(write("Shuffle", .bool(true)) == .command("changeShuffleMode", ["shuffleType": "items"]))
        #expect(write("Rate", .double(1.5)) == .command("changePlaybackRate", ["playbackRate": 1.5]))
        #expect(write("Rate", .double(0)) == .command("pause", [:]))
        #expect(write("Volume", .double(-3)) == .command("changeVolume", ["volume": 0]))
        #expect(write("Volume", .double(0.3)) == .command("changeVolume", ["volume": 0.3]))
    }

    @Test("a radio's new song is PropertiesChanged of Metadata and TrackMetadataChanged; a queue change is TrackListReplaced")
    func signals() throws {
        let queue: JSONValue = ["identifiers": ["radio:1", "radio:2"], "index": 0, "repeatMode": "off", "shuffleMode": "off"]
        let before = MPRISInputs(
            nowPlaying: ["state": "playing", "identifier": "radio:1", "title": "First Song", "playbackQueueIndex": 0],
            queue: queue)
        var after = before
        after.nowPlaying = ["state": "playing", "identifier": "radio:1", "title": "Second Song", "playbackQueueIndex": 0]
        let signals = MPRISSignal.changes(from: before, to: after)
        #expect(signals.map(\.name) == ["PropertiesChanged", "TrackMetadataChanged"])
        let changed = try #require(signals.first?.arguments[1].vardictMembers)
        #expect(changed.keys.sorted() == ["Metadata"])
        #expect(changed["Metadata"]?.vardictMembers?["xesam:title"] == .string("Second Song"))

        var requeued = after
        requeued.queue = ["identifiers": ["radio:2", "radio:1"], "index": 1, "repeatMode": "off", "shuffleMode": "off"]
        requeued.nowPlaying = ["state": "playing", "identifier": "radio:1", "title": "Second Song", "playbackQueueIndex": 1]
        let replaced = MPRISSignal.changes(from: after, to: requeued)
        let trackList = try #require(replaced.first { $0.name == "TrackListReplaced" })
        #expect(trackList.arguments[1] == .objectPath(MPRISTrackID.paths(for: ["radio:1"])[0]))
        let invalidated = replaced.first { $0.arguments.first == .string(MPRISNames.trackList) }
        #expect(invalidated?.arguments[2] == .strings(["Tracks"]), "Tracks is invalidated, not sent")
        #expect(!replaced.contains { $0.name == "TrackMetadataChanged" })
    }

    @Test("while now playing and the queue disagree for a moment, the track id follows now playing")
    func trackIDFollowsNowPlaying() {
        let inputs = MPRISInputs(
            nowPlaying: ["state": "playing", "identifier": "b", "playbackQueueIndex": 1],
            queue: ["identifiers": ["a", "b", "c"], "index": 2])
        #expect(inputs.currentTrackID == MPRISTrackID.paths(for: ["a", "b"])[1])
    }

    // MARK: - Helpers

    func act(_ method: String, _ arguments: [DBusValue]) -> MPRISAction? {
        guard let member = MPRISMember.all.first(where: { $0.name == method }), case let .method(_, _, act) = member.kind
        else { return nil }
        return act(arguments)
    }

    func write(_ property: String, _ value: DBusValue) -> MPRISAction? {
        MPRISMember.all.first { $0.name == property }?.property?.write?(value)
    }
}

private struct NoHandler: BusObjectHandler {
    func handle(_ call: BusMethodCall) { call.reply.succeed() }
    func property(interface: String, name: String) -> DBusValue? { nil }
}
