import Foundation
import Logging
import MediaJSON
import Playback
import RemoteCommands
import ServiceLifecycle

/// Where a catalog item an announcement names can be read from.
public enum ClipLocation: Sendable, Equatable {
    /// A local file: the item's own, or its downloaded copy (plays offline).
    case file(path: String)
    case remote(URL)
}

/// The catalog, as announcements see it.
public protocol AnnouncementCatalog: Sendable {
    /// Where the playable item `identifier` can be read from; nil when there is no such playable item.
    func clipLocation(of identifier: String) async -> ClipLocation?
}

/// The music, as announcements see it (the playback controller).
public protocol AnnouncementMusic: Sendable {
    func holdForAnnouncement(_ hold: MusicHold) async
    func releaseAfterAnnouncements() async
    var listenerVolume: Double { get async }
}

/// Where announcements say what happened (`P/events`).
public protocol AnnouncementEvents: Sendable {
    func announcementStarted(id: String)
    func announcementFinished(id: String, reason: AnnouncementEnd)
}

/// Why an announcement ended.
public enum AnnouncementEnd: Sendable, Equatable {
    case finished
    case cancelled
    case failed(String)
}

/// Why an announcement was not accepted: the reply's status and message.
public struct AnnouncementRefusal: Error, Sendable, Equatable {
    public enum Kind: Sendable { case noSuchContent, commandFailed }
    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}

/// Plays announcements over the music, one after another in the order accepted, with at most
/// `Announcement.maximumWaiting` waiting besides the one playing; holds the music under them (ducked or
/// paused) and gives it back after the last.
///
/// The only owner of the announcements' queue. `accept` checks a request's source at once (the reply says
/// whether it will play); the service's own task plays them, so a clip never holds up a command. A URL is
/// downloaded first, within the transfer client's caps, so a dead, endless or huge one fails before the
/// music is touched.
public actor Announcer: Service {
    private struct Pending {
        var id: String
        var announcement: Announcement
    }

    private let player: any ClipPlayer
    private let music: any AnnouncementMusic
    private let catalog: (any AnnouncementCatalog)?
    private let events: any AnnouncementEvents
    private let fetcher: ClipFetcher
    private let logger: Logger

    private var waiting: [Pending] = []
    /// The announcement being prepared or played, whether `cancel` ended it, and how to stop what it
    /// does now (its download, or its clip).
    private var playing: (id: String, cancelled: Bool, stop: (@Sendable () -> Void)?)?
    /// Waiting announcements a `cancel` dropped while one played; reported after it.
    private var dropped: [String] = []
    private let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(player: any ClipPlayer, music: any AnnouncementMusic, catalog: (any AnnouncementCatalog)?,
                events: any AnnouncementEvents, temporaryDirectory: URL, logger: Logger) {
        self.player = player
        self.music = music
        self.catalog = catalog
        self.events = events
        self.fetcher = ClipFetcher(directory: temporaryDirectory)
        self.logger = logger
    }

    public nonisolated var canSpeak: Bool { player.canSpeak }

    /// Queues `announcement` and returns its id, or says why it cannot play.
    public func accept(_ announcement: Announcement) async -> Result<String, AnnouncementRefusal> {
        guard waiting.count < Announcement.maximumWaiting else {
            return .failure(.init(kind: .commandFailed, message:
                "\(Announcement.maximumWaiting) announcements are waiting already; try again when one has played"))
        }
        switch announcement.source {
        case let .url(text):
            if text.hasPrefix("file://") {
                guard let path = Self.localPath(text) else {
                    return .failure(.init(kind: .commandFailed, message: "'url' is not a valid file URL"))
                }
                if let problem = Self.unreadable(path) { return .failure(.init(kind: .noSuchContent, message: problem)) }
            } else if URL(string: text)?.host == nil {
                return .failure(.init(kind: .commandFailed, message: "'url' is not a valid http(s) URL"))
            }
        case let .identifier(identifier):
            guard let catalog, let location = await catalog.clipLocation(of: identifier) else {
                return .failure(.init(kind: .noSuchContent, message: "no playable item \(identifier)"))
            }
            if case let .file(path) = location, let problem = Self.unreadable(path) {
                return .failure(.init(kind: .noSuchContent, message: "\(identifier): \(problem)"))
            }
        case .text:
            guard player.canSpeak else {
                return .failure(.init(kind: .commandFailed, message:
                    "this node has no text-to-speech (install espeak-ng and gstreamer1.0-espeak)"))
            }
        }
        // Checked again: the catalog lookup above may have let another request in.
        guard waiting.count < Announcement.maximumWaiting else {
            return .failure(.init(kind: .commandFailed, message: "\(Announcement.maximumWaiting) announcements are waiting already"))
        }
        let id = UUID().uuidString.lowercased()
        waiting.append(Pending(id: id, announcement: announcement))
        wake.yield()
        return .success(id)
    }

    /// Stops the announcement playing and drops those waiting; each ends `cancelled`, the one playing
    /// first. Returns how many it ended.
    @discardableResult
    public func cancelAll() -> Int {
        let ids = waiting.map(\.id)
        waiting.removeAll()
        if let current = playing {
            dropped += ids
            playing?.cancelled = true
            current.stop?()
            return ids.count + 1
        }
        for id in ids { events.announcementFinished(id: id, reason: .cancelled) }
        return ids.count
    }

    /// Plays announcements until shutdown, which stops the one playing and drops the waiting ones (each
    /// ends `cancelled`). The music is not given back then: the audio stops right after, and the resume
    /// store saves it as it stands. The downloads folder is this node's alone, so it goes too: a download
    /// the shutdown cut short is never played, and a daemon restarted every day would leave one a day.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            for await _ in self.wakes {
                guard !Task.isCancelled else { break }
                await self.playWaiting()
            }
        }
        cancelAll()
        try? FileManager.default.removeItem(at: fetcher.directory)
    }

    /// Plays every waiting announcement, then gives the music back.
    private func playWaiting() async {
        var held = false
        while !waiting.isEmpty, !Task.isCancelled {
            let next = waiting.removeFirst()
            playing = (next.id, false, nil)
            let end = await play(next, holding: &held)
            playing = nil
            events.announcementFinished(id: next.id, reason: end)
            if case let .failed(message) = end { logger.warning("announcement \(next.id) failed: \(message)") }
            for id in dropped { events.announcementFinished(id: id, reason: .cancelled) }
            dropped.removeAll()
        }
        if held, !Task.isCancelled { await music.releaseAfterAnnouncements() }
    }

    private func play(_ pending: Pending, holding held: inout Bool) async -> AnnouncementEnd {
        let announcement = pending.announcement
        let preparation = Task { try await self.prepare(announcement.source) }
        playing?.stop = { preparation.cancel() }
        let prepared: PreparedClip
        do {
            prepared = try await withTaskCancellationHandler {
                try await preparation.value
            } onCancel: {
                preparation.cancel()
            }
        } catch {
            return playing?.cancelled == true || error is CancellationError ? .cancelled : .failed("\(error)")
        }
        defer { prepared.discard() }
        guard playing?.cancelled != true else { return .cancelled }
        await music.holdForAnnouncement(announcement.mode == .pause ? .pause : .duck)
        held = true
        let listenerLevel = await music.listenerVolume
        let level = announcement.volume ?? listenerLevel
        // The listener's slider is heard as its cube; an announcement's level the same way.
        let amplitude = level * level * level
        let id = pending.id
        let task = Task { [player, events] in
            await player.play(prepared.clip, amplitude: amplitude) { events.announcementStarted(id: id) }
        }
        playing?.stop = { task.cancel() }
        // A cancel that came while the music was being held had nothing to stop yet.
        if playing?.cancelled == true { task.cancel() }
        let outcome = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        switch outcome {
        case .finished: return .finished
        case .cancelled: return .cancelled
        case let .failed(message): return .failed(message)
        }
    }

    private struct PreparedClip {
        var clip: Clip
        /// A downloaded copy, removed once played.
        var temporary: URL?
        func discard() {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }
    }

    private func prepare(_ source: Announcement.Source) async throws -> PreparedClip {
        switch source {
        case let .text(text, language):
            return PreparedClip(clip: .speech(text: text, language: language))
        case let .url(text):
            if text.hasPrefix("file://") {
                guard let path = Self.localPath(text) else { throw ClipError("'url' is not a valid file URL") }
                return PreparedClip(clip: .file(path: path))
            }
            guard let url = URL(string: text) else { throw ClipError("'url' is not a valid URL") }
            let file = try await fetcher.fetch(url)
            return PreparedClip(clip: .file(path: file.path), temporary: file)
        case let .identifier(identifier):
            switch await catalog?.clipLocation(of: identifier) {
            case let .file(path)?: return PreparedClip(clip: .file(path: path))
            case let .remote(url)?:
                let file = try await fetcher.fetch(url)
                return PreparedClip(clip: .file(path: file.path), temporary: file)
            case nil: throw ClipError("\(identifier) is no longer in the catalog")
            }
        }
    }

    static func localPath(_ fileURL: String) -> String? {
        guard let url = URL(string: fileURL), url.isFileURL, !url.path.isEmpty else { return nil }
        return url.path
    }

    /// Why `path` cannot be played as a file, or nil.
    static func unreadable(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file: \(path)" }
        guard !isDirectory.boolValue else { return "\(path) is a directory, not an audio file" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "\(path) cannot be read" }
        return nil
    }
}

extension Announcer {
    /// `announce`: accepted (its id in the reply) or refused at once, then played in turn; or `cancel`.
    public func answer(_ request: AnnounceRequest) async -> CommandResult {
        switch request {
        case .cancel:
            let ended = await cancelAll()
            return CommandResult(.success, data: ["cancelled": .number(Double(ended))])
        case let .announce(announcement):
            switch await accept(announcement) {
            case let .success(id):
                return CommandResult(.success, data: ["announcementId": .string(id)])
            case let .failure(refusal):
                return CommandResult(refusal.kind == .noSuchContent ? .noSuchContent : .commandFailed, message: refusal.message)
            }
        }
    }
}

struct ClipError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
