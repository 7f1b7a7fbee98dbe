import MediaJSON
import RemoteCommands
import Synchronization
import Testing

/// `P/commands`: what the capability document contains and how often a change asks for it again.
@Suite("Command capabilities")
struct RemoteCommandCapabilityTests {
    @Test("the document lists every command with its enabled flag and parameters (S2, S7)")
    func documentContents() {
        let center = RemoteCommandCenter()
        center.addHandler(for: .play) { .success }
        center.addHandler(for: .pause) { .success }
        center.addHandler(for: .skipForward) { _ in .success }
        center.addHandler(for: .changePlaybackRate) { _ in .success }
        center.addHandler(for: .like) { _ in .success }
        center.addHandler(for: .changeRepeatMode) { _ in .success }
        center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
        center.setParameter("currentRepeatType", "all", for: .changeRepeatMode)
        center.setParameter("isActive", true, for: .like)
        let document = center.capabilitiesDocument
        #expect(document.objectValue?.keys.sorted() == CommandTable.names.sorted())
        #expect(document["play"] == ["enabled": true])
        #expect(document["stop"] == ["enabled": false])
        #expect(document["skipForward"] == ["enabled": true, "preferredIntervals": [15]])
        #expect(document["skipBackward"] == ["enabled": false, "preferredIntervals": [15]])
        #expect(document["changePlaybackRate"] == [
            "enabled": true, "supportedPlaybackRates": [1.0, 1.5, 2.0, 0.5],
            "playerPlaybackRates": [0.5, 0.75, 1.0, 1.25, 1.5, 2.0],
        ])
        #expect(document["changeRepeatMode"] == ["enabled": true, "currentRepeatType": "all"])
        #expect(document["changeShuffleMode"] == ["enabled": false, "currentShuffleType": "off"])
        #expect(document["like"] == ["enabled": true, "localizedTitle": "Like", "localizedShortTitle": "Like",
                                     "isActive": true])
        #expect(document["bookmark"] == ["enabled": false, "localizedTitle": "Bookmark", "localizedShortTitle": "Save",
                                         "isActive": false])
        #expect(document["rating"] == ["enabled": false, "minimumRating": 0, "maximumRating": 5])
        #expect(document.jsonString.contains(#""preferredIntervals":[15]"#), "integral numbers print as integers")
    }

    @Test("item commands show disabled with nothing loaded, and seeking shows disabled in a live stream (S3, S14)")
    func availabilityFollowsNowPlaying() {
        let center = RemoteCommandCenter()
        center.addHandler(for: .play) { .success }
        center.addHandler(for: .skipForward) { _ in .success }
        center.addHandler(for: .changePlaybackPosition) { _ in .success }
        center.addHandler(for: .changePlaybackRate) { _ in .success }
        func shown() -> [Bool] {
            [center.isEnabled(.play), center.isEnabled(.skipForward), center.isEnabled(.changePlaybackPosition),
             center.isEnabled(.changePlaybackRate)]
        }
        #expect(shown() == [true, false, false, false], "nothing loaded: only play")
        center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
        #expect(shown() == [true, true, true, true])
        center.setNowPlaying(isItemLoaded: true, isLiveStream: true)
        #expect(shown() == [true, false, false, true], "a live stream has no position to move")
        center.setCurrentPlaybackRate(0.75)
        #expect(shown() == [true, false, false, false], "outside the head unit's rates (S17)")
    }

    @Test("skipToChapter shows enabled only while the current item has chapters (version 1.3)")
    func chapterAvailability() {
        let center = RemoteCommandCenter()
        center.addHandler(for: .skipToChapter) { _ in .success }
        #expect(!center.isEnabled(.skipToChapter), "nothing loaded")
        center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
        #expect(!center.isEnabled(.skipToChapter), "an item without chapters")
        center.setCurrentItemHasChapters(true)
        #expect(center.isEnabled(.skipToChapter))
        #expect(center.capabilitiesDocument["skipToChapter"]?["enabled"] == true)
        center.setNowPlaying(isItemLoaded: false, isLiveStream: false)
        #expect(!center.isEnabled(.skipToChapter), "stopped")
    }

    @Test("configured capability parameters are what the document shows")
    func configuredParameters() {
        let center = RemoteCommandCenter(capabilities: CommandCapabilities(
            preferredIntervals: [10, 30], supportedPlaybackRates: [1.0, 2.0], playerPlaybackRates: [0.8, 1.0, 1.2],
            feedbackTitles: ["like": ("Gefällt mir", "Mag ich")]))
        let document = center.capabilitiesDocument
        #expect(document["skipForward"]?["preferredIntervals"] == [10, 30])
        #expect(document["changePlaybackRate"]?["supportedPlaybackRates"] == [1, 2])
        #expect(document["changePlaybackRate"]?["playerPlaybackRates"] == [0.8, 1, 1.2, 2],
                "the player's rates always include the head unit's")
        #expect(document["like"]?["localizedShortTitle"] == "Mag ich")
        #expect(document["dislike"]?["localizedTitle"] == nil, "no title configured, none shown")
    }

    @Test("a burst of changes coalesces into one signal on the changes stream")
    func changesCoalesce() async throws {
        let center = RemoteCommandCenter()
        let signals = Mutex(0)
        for flag in [true, false, true, false, true] { center.setParameter("isActive", .bool(flag), for: .like) }
        let token = center.addHandler(for: .play) { _ in .success }
        center.setEnabled(false, for: .play)
        center.setCurrentPlaybackRate(0.75)
        let reader = Task {
            for await _ in center.changes { signals.withLock { $0 += 1 } }
        }
        defer { reader.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(signals.withLock { $0 } == 1, "eight changes, one signal")
        center.removeHandler(token)
        try await Self.eventually { signals.withLock { $0 } == 2 }
    }

    @Test("setting what is already set signals nothing")
    func noChangeNoSignal() async throws {
        let center = RemoteCommandCenter()
        let signals = Mutex(0)
        let reader = Task {
            for await _ in center.changes { signals.withLock { $0 += 1 } }
        }
        defer { reader.cancel() }
        center.setParameter("currentShuffleType", "off", for: .changeShuffleMode)  // the initial value
        center.setEnabled(true, for: .play)
        center.setCurrentPlaybackRate(1.0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(signals.withLock { $0 } == 0)
        center.setParameter("currentShuffleType", "items", for: .changeShuffleMode)
        try await Self.eventually { signals.withLock { $0 } == 1 }
    }

    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
