import Announcements
import Foundation
import Playback
import RemoteCommands
import Synchronization
import Testing

/// The announcer through its protocols, with stand-ins for the clip player, the music and the events:
/// order, the waiting limit, cancel, refusals and what the music is told, without GStreamer or a broker.
@Suite("Announcer")
struct AnnouncerTests {
    @Test("clips play one after another in the order accepted; the music is held once and given back after the last")
    func order() async throws {
        let rig = AnnouncerRig()
        // The first clip plays until all three are accepted: the music is held across the queue, not per clip.
        rig.player.gate.withLock { $0 = true }
        let ids = try await [rig.accept(.text("one", language: nil)), rig.accept(.text("two", language: nil)),
                             rig.accept(.text("three", language: "de"))]
        rig.player.gate.withLock { $0 = false }
        await rig.eventually { rig.events.log.count == 6 }
        #expect(rig.events.log == ids.flatMap { ["started \($0)", "finished \($0) finished"] })
        #expect(rig.player.played == ["one", "two", "three"])
        #expect(rig.music.log == ["hold duck", "hold duck", "hold duck", "release"])
    }

    @Test("the level is the announcement's volume, else the listener's, heard as its cube")
    func level() async throws {
        let rig = AnnouncerRig()
        rig.music.volume.withLock { $0 = 0.5 }
        _ = try await rig.accept(.text("a", language: nil))
        _ = try await rig.accept(.text("b", language: nil), volume: 1)
        await rig.eventually { rig.player.amplitudes.count == 2 }
        #expect(rig.player.amplitudes == [0.125, 1])
    }

    @Test("at most ten wait besides the one playing; the eleventh is refused")
    func waitingLimit() async throws {
        let rig = AnnouncerRig(holdClips: true)
        _ = try await rig.accept(.text("playing", language: nil))
        await rig.eventually { rig.player.played.count == 1 }
        for index in 1...10 { _ = try await rig.accept(.text("waiting \(index)", language: nil)) }
        let refused = await rig.announcer.accept(Announcement(source: .text("eleventh", language: nil)))
        #expect(refused == .failure(AnnouncementRefusal(kind: .commandFailed,
            message: "10 announcements are waiting already; try again when one has played")))
        #expect(await rig.announcer.cancelAll() == 11)
        await rig.eventually { rig.events.log.filter { $0.hasSuffix("cancelled") }.count == 11 }
        #expect(rig.events.log.first?.hasPrefix("started") == true)
        #expect(rig.events.log.dropFirst().first?.hasSuffix("cancelled") == true, "the playing one ends first")
        #expect(rig.music.log.last == "release")
    }

    @Test("pause mode holds the music paused; a failed clip ends failed and the music still comes back")
    func pauseAndFailure() async throws {
        let rig = AnnouncerRig()
        rig.player.failing.withLock { $0 = ["broken"] }
        let id = try await rig.accept(.text("broken", language: nil), mode: .pause)
        await rig.eventually { rig.music.log.last == "release" }
        #expect(rig.events.log == ["finished \(id) failed: not audio"])
        #expect(rig.music.log == ["hold pause", "release"])
    }

    @Test("missing files, unknown identifiers, text without a voice and bad URLs are refused at once")
    func refusals() async throws {
        let rig = AnnouncerRig(canSpeak: false)
        let missing = await rig.announcer.accept(Announcement(source: .url("file:///nowhere/chime.ogg")))
        #expect(missing == .failure(AnnouncementRefusal(kind: .noSuchContent, message: "no such file: /nowhere/chime.ogg")))
        let unknown = await rig.announcer.accept(Announcement(source: .identifier("track:404")))
        #expect(unknown == .failure(AnnouncementRefusal(kind: .noSuchContent, message: "no playable item track:404")))
        guard case .failure(let speech) = await rig.announcer.accept(Announcement(source: .text("a", language: nil))) else {
            Issue.record("text was accepted without text-to-speech")
            return
        }
        #expect(speech.kind == .commandFailed && speech.message.contains("no text-to-speech"))
        guard case .failure(let directory) = await rig.announcer.accept(Announcement(source: .url("file:///tmp"))) else {
            Issue.record("a directory was accepted")
            return
        }
        #expect(directory.kind == .noSuchContent)
        try await Task.sleep(for: .milliseconds(50))
        #expect(rig.events.log.isEmpty && rig.music.log.isEmpty, "a refusal touches nothing")
    }

    @Test("a catalog item plays from its local file")
    func catalogItem() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("announcer-\(UUID().uuidString).ogg")
        try Data([1, 2, 3]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let rig = AnnouncerRig(catalog: ["track:1": .file(path: file.path)])
        _ = try await rig.accept(identifier: "track:1")
        await rig.eventually { rig.player.played.count == 1 }
        #expect(rig.player.played == [file.path])
    }
}

// MARK: - Stand-ins

private final class StandInPlayer: ClipPlayer, @unchecked Sendable {
    let canSpeak: Bool
    let holdClips: Bool
    private let state = Mutex<(played: [String], amplitudes: [Double])>(([], []))
    let failing = Mutex<Set<String>>([])
    /// While true, a clip plays on (until false).
    let gate = Mutex(false)
    var played: [String] { state.withLock { $0.played } }
    var amplitudes: [Double] { state.withLock { $0.amplitudes } }

    init(canSpeak: Bool, holdClips: Bool) {
        self.canSpeak = canSpeak
        self.holdClips = holdClips
    }

    func play(_ clip: Clip, amplitude: Double, started: @escaping @Sendable () -> Void) async -> ClipOutcome {
        let name: String
        switch clip {
        case let .file(path): name = path
        case let .speech(text, _): name = text
        }
        state.withLock { $0.played.append(name); $0.amplitudes.append(amplitude) }
        if failing.withLock({ $0.contains(name) }) { return .failed("not audio") }
        started()
        while gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
        if holdClips {
            // Plays until cancelled.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            return .cancelled
        }
        return .finished
    }
}

private final class StandInMusic: AnnouncementMusic, @unchecked Sendable {
    private let entries = Mutex<[String]>([])
    let volume = Mutex(1.0)
    var log: [String] { entries.withLock { $0 } }

    func holdForAnnouncement(_ hold: MusicHold) async { entries.withLock { $0.append("hold \(hold == .duck ? "duck" : "pause")") } }
    func releaseAfterAnnouncements() async { entries.withLock { $0.append("release") } }
    var listenerVolume: Double { get async { volume.withLock { $0 } } }
}

private final class EventLog: AnnouncementEvents, @unchecked Sendable {
    private let entries = Mutex<[String]>([])
    var log: [String] { entries.withLock { $0 } }

    func announcementStarted(id: String) { entries.withLock { $0.append("started \(id)") } }
    func announcementFinished(id: String, reason: AnnouncementEnd) {
        let text: String
        switch reason {
        case .finished: text = "finished"
        case .cancelled: text = "cancelled"
        case let .failed(message): text = "failed: \(message)"
        }
        entries.withLock { $0.append("finished \(id) \(text)") }
    }
}

private struct StandInCatalog: AnnouncementCatalog {
    let locations: [String: ClipLocation]
    func clipLocation(of identifier: String) async -> ClipLocation? { locations[identifier] }
}

private struct AnnouncerRig {
    let player: StandInPlayer
    let music = StandInMusic()
    let events = EventLog()
    let announcer: Announcer

    init(canSpeak: Bool = true, holdClips: Bool = false, catalog: [String: ClipLocation] = [:]) {
        player = StandInPlayer(canSpeak: canSpeak, holdClips: holdClips)
        announcer = Announcer(
            player: player, music: music, catalog: StandInCatalog(locations: catalog), events: events,
            temporaryDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("announcer-tests"),
            logger: .init(label: "test"))
        let announcer = announcer
        Task { try await announcer.run() }
    }

    func accept(_ source: Announcement.Source, mode: Announcement.Mode = .duck, volume: Double? = nil) async throws -> String {
        try await announcer.accept(Announcement(source: source, mode: mode, volume: volume)).get()
    }

    func accept(identifier: String) async throws -> String {
        try await accept(.identifier(identifier))
    }

    func eventually(_ condition: @Sendable () async -> Bool) async {
        for _ in 0..<2_000 {
            if await condition() { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("condition never held")
    }
}

extension AnnouncementRefusal: CustomStringConvertible {
    public var description: String { "\(kind): \(message)" }
}
