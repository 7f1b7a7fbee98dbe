import MediaJSON
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Synchronization
import Testing

/// The command center as a head unit sees it: handlers that come and go (S3), enabled flags (S2),
/// the rate rules (S16, S17) and the capability document (S7).
@Suite("Remote command center")
struct RemoteCommandCenterTests {
    static func send(_ center: RemoteCommandCenter, _ name: String, _ payload: String = "") async -> CommandReply {
        await center.handle(name: name, payload: Array(payload.utf8))
    }

    @Test("a command without a handler answers \"not implemented yet\" and shows disabled")
    func notImplemented() async {
        let center = RemoteCommandCenter()
        let reply = await Self.send(center, "play")
        #expect(reply.result == .failed("play is not implemented yet"))
        #expect(!center.isEnabled(.play))
        #expect(center.capabilitiesDocument["play"]?["enabled"] == false)
    }

    @Test("handlers are added and removed at run time and the capability document follows")
    func registry() async {
        let center = RemoteCommandCenter()
        let calls = Mutex<[String]>([])
        let first = center.addHandler(for: .nextTrack) { _ in calls.withLock { $0.append("first") }; return .success }
        let second = center.addHandler(for: .nextTrack) { _ in calls.withLock { $0.append("second") }; return .success }
        #expect(center.capabilitiesDocument["nextTrack"]?["enabled"] == true)
        #expect(await Self.send(center, "nextTrack").result.status == .success)
        #expect(calls.withLock { $0 } == ["first", "second"], "several handlers run in the order they were added")

        center.removeHandler(first)
        calls.withLock { $0.removeAll() }
        #expect(await Self.send(center, "nextTrack").result.status == .success)
        #expect(calls.withLock { $0 } == ["second"])

        center.removeHandler(second)
        center.removeHandler(second)  // twice is harmless
        #expect(await Self.send(center, "nextTrack").result.message == "nextTrack is not implemented yet")
        #expect(center.capabilitiesDocument["nextTrack"]?["enabled"] == false)
    }

    @Test("the first handler that does not succeed answers and the rest do not run")
    func firstFailureWins() async {
        let center = RemoteCommandCenter()
        let calls = Mutex<[String]>([])
        center.addHandler(for: .play) { _ in calls.withLock { $0.append("a") }; return .success }
        center.addHandler(for: .play) { _ in
            calls.withLock { $0.append("b") }
            return CommandResult(.deviceNotFound, message: "output lost")
        }
        center.addHandler(for: .play) { _ in calls.withLock { $0.append("c") }; return .failed("never") }
        let reply = await Self.send(center, "play", #"{"id":"9"}"#)
        #expect(reply.result == CommandResult(.deviceNotFound, message: "output lost"))
        #expect(reply.id == "9")
        #expect(calls.withLock { $0 } == ["a", "b"])
    }

    @Test("a handler that answers later returns at once; the reply waits for it and the handlers after it run then")
    func laterAnswer() async {
        let center = RemoteCommandCenter()
        let calls = Mutex<[String]>([])
        let gate = AsyncStream.makeStream(of: CommandResult.self)
        center.addHandler(for: .playItem) { _ in
            calls.withLock { $0.append("started") }
            return .later {
                for await result in gate.stream { return result }
                return .failed("gate closed")
            }
        }
        center.addHandler(for: .playItem) { _ in calls.withLock { $0.append("after") }; return .success(data: "done") }
        let reply = await Self.send(center, "playItem", #"{"id":"p","identifier":"x"}"#)
        #expect(reply.result.deferred != nil)
        #expect(calls.withLock { $0 } == ["started"], "the rest of the chain waits for the deferred work")
        gate.continuation.yield(.success)
        let finished = await reply.finished()
        #expect(finished.result == .success(data: "done") && finished.id == "p")
        #expect(calls.withLock { $0 } == ["started", "after"])

        // A deferred failure is the answer, and the handlers after it never run.
        calls.withLock { $0.removeAll() }
        let failing = await Self.send(center, "playItem", #"{"identifier":"x"}"#)
        gate.continuation.yield(CommandResult(.deviceNotFound, message: "output lost"))
        #expect(await failing.finished().result == CommandResult(.deviceNotFound, message: "output lost"))
        #expect(calls.withLock { $0 } == ["started"])
    }

    @Test("when every handler succeeds the last one's data is the answer")
    func lastSuccessData() async {
        let center = RemoteCommandCenter()
        center.addHandler(for: .contentItem) { _ in .success(data: ["from": "first"]) }
        center.addHandler(for: .contentItem) { identifier in .success(data: ["identifier": .string(identifier)]) }
        let reply = await Self.send(center, "contentItem", #"{"identifier":"t:1"}"#)
        #expect(reply.result == .success(data: ["identifier": "t:1"]))
    }

    @Test("a disabled command is refused with commandFailed and shown enabled:false")
    func disabled() async {
        let center = RemoteCommandCenter()
        let ran = Mutex(false)
        center.addHandler(for: .pause) { _ in ran.withLock { $0 = true }; return .success }
        center.setEnabled(false, for: .pause)
        let reply = await Self.send(center, "pause")
        #expect(reply.result == .failed("pause is disabled"))
        #expect(!ran.withLock { $0 })
        #expect(center.capabilitiesDocument["pause"]?["enabled"] == false)
        center.setEnabled(true, for: .pause)
        #expect(await Self.send(center, "pause").result.status == .success)
        #expect(center.capabilitiesDocument["pause"]?["enabled"] == true)
    }

    @Test("outside supportedPlaybackRates the rate command shows disabled yet takes explicit player rates (S17)")
    func headUnitRateRule() async {
        let center = RemoteCommandCenter()
        let applied = Mutex<[PlaybackRateRequest]>([])
        center.addHandler(for: .changePlaybackRate) { request in
            applied.withLock { $0.append(request) }
            return .success
        }
        center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
        #expect(center.isEnabled(.changePlaybackRate))
        center.setCurrentPlaybackRate(0.75)
        #expect(!center.isEnabled(.changePlaybackRate))
        #expect(center.capabilitiesDocument["changePlaybackRate"]?["enabled"] == false)

        #expect(await Self.send(center, "changePlaybackRate", #"{"playbackRate":1.25}"#).result.status == .success,
                "a companion app's explicit player rate still works")
        let next = await Self.send(center, "changePlaybackRate", #"{"playbackRate":"next"}"#)
        #expect(next.result.status == .commandFailed, "\"next\" is refused while it shows disabled")
        #expect(next.result.message?.contains("outside supportedPlaybackRates") == true)
        let foreign = await Self.send(center, "changePlaybackRate", #"{"playbackRate":3}"#)
        #expect(foreign.result.status == .commandFailed, "a rate the player lacks is still refused")

        center.setCurrentPlaybackRate(1.5)
        #expect(center.capabilitiesDocument["changePlaybackRate"]?["enabled"] == true, "back inside the set")
        #expect(await Self.send(center, "changePlaybackRate", #"{"playbackRate":"next"}"#).result.status == .success)
        #expect(applied.withLock { $0 } == [.rate(1.25), .next])
    }

    @Test("a rate command disabled on purpose refuses explicit rates too")
    func rateDisabledOnPurpose() async {
        let center = RemoteCommandCenter()
        center.addHandler(for: .changePlaybackRate) { _ in .success }
        center.setEnabled(false, for: .changePlaybackRate)
        let reply = await Self.send(center, "changePlaybackRate", #"{"playbackRate":1.0}"#)
        #expect(reply.result == .failed("changePlaybackRate is disabled"))
    }

    @Test("\"next\" cycles 1.0, 1.5, 2.0, 0.5 and wraps to 1.0 (S16)")
    func nextRateCycle() async {
        let center = RemoteCommandCenter()
        let capabilities = center.capabilities
        let rates = Mutex<[Double]>([])
        center.addHandler(for: .changePlaybackRate) { [center] request in
            let current = rates.withLock { $0.last ?? 1.0 }
            guard request == .next, let next = capabilities.nextSupportedRate(after: current) else { return .failed("no next rate") }
            rates.withLock { $0.append(next) }
            center.setCurrentPlaybackRate(next)
            return .success
        }
        for _ in 0..<5 { _ = await Self.send(center, "changePlaybackRate", #"{"playbackRate":"next"}"#) }
        #expect(rates.withLock { $0 } == [1.5, 2.0, 0.5, 1.0, 1.5])
        #expect(capabilities.nextSupportedRate(after: 0.75) == nil, "no step from outside the set")
        let custom = CommandCapabilities(supportedPlaybackRates: [1.0, 2.0])
        #expect(custom.nextSupportedRate(after: 2.0) == 1.0)
        #expect(custom.playerPlaybackRates == [0.5, 0.75, 1.0, 1.25, 1.5, 2.0])
    }

    @Test("a rating is accepted only within minimumRating...maximumRating")
    func ratingRange() async {
        let center = RemoteCommandCenter(capabilities: CommandCapabilities(minimumRating: 1, maximumRating: 10))
        center.addHandler(for: .rating) { _ in .success }
        for (rating, status) in [(1.0, CommandStatus.success), (10, .success), (7.5, .success), (0.5, .commandFailed),
                                 (10.01, .commandFailed)] {
            let reply = await Self.send(center, "rating", #"{"rating":\#(rating)}"#)
            #expect(reply.result.status == status, "rating \(rating)")
        }
        let low = await Self.send(center, "rating", #"{"rating":0}"#)
        #expect(low.result.message == "'rating' must be within 1...10, got 0")
        #expect(center.capabilitiesDocument["rating"] == ["enabled": true, "minimumRating": 1, "maximumRating": 10])
    }

    @Test("the published document is made again for every change it shows, and only then")
    func publishedDocumentFollowsChanges() throws {
        let center = RemoteCommandCenter()
        func published() throws -> JSONValue { try JSONValue(parsing: center.capabilitiesDocumentBytes) }
        let before = center.capabilitiesDocumentBytes
        #expect(center.capabilitiesDocumentBytes == before, "nothing changed: the same document")
        #expect(try published() == center.capabilitiesDocument)

        center.addHandler(for: .pause) { _ in .success }
        #expect(try published()["pause"]?["enabled"] == true, "a handler added")
        center.setEnabled(false, for: .pause)
        #expect(try published()["pause"]?["enabled"] == false, "disabled")
        center.setParameter("isActive", true, for: .like)
        #expect(try published()["like"]?["isActive"] == true, "a parameter set")

        // A shown parameter changes with its owner, which tells the center nothing: read on every make.
        let level = Mutex(0.5)
        center.showParameters(of: "changeVolume") { ["volume": .number(level.withLock { $0 })] }
        #expect(try published()["changeVolume"]?["volume"] == 0.5)
        level.withLock { $0 = 0.25 }
        #expect(try published()["changeVolume"]?["volume"] == 0.25, "the owner's new value, without a change")
        #expect(try published() == center.capabilitiesDocument)
    }

    @Test("made again entry by entry, the document is byte for byte the generic writer's, through every change")
    func publishedBytesAreTheDocuments() {
        let center = RemoteCommandCenter()
        func same(_ step: String) {
            #expect(center.capabilitiesDocumentBytes == center.capabilitiesDocument.jsonBytes, "\(step)")
        }
        same("at the start")
        center.addHandler(for: .pause) { _ in .success }
        same("a handler added")
        center.setCurrentPlaybackRate(1.5)
        same("a rate")
        center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
        same("an item loaded")
        center.setEnabled(false, for: .pause)
        same("disabled")
        center.setParameter("isActive", true, for: .like)
        same("a parameter")
        center.setCurrentPlaybackRate(0)
        center.setNowPlaying(isItemLoaded: false, isLiveStream: false)
        same("back as it was")
    }
}
