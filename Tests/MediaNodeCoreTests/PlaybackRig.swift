import MediaNodeTesting
import Playback
import Synchronization
import Testing

/// A controller wired to the in-memory engine and a manual clock, with its fact loop running.
struct PlaybackRig {
    let clock: ManualPlaybackClock
    let engine: InMemoryAudioEngine
    let controller: PlaybackController
    let recorder = EventRecorder()

    init(configuration: PlaybackConfiguration = PlaybackConfiguration()) {
        clock = ManualPlaybackClock(start: 1_000)
        engine = InMemoryAudioEngine(clock: clock)
        controller = PlaybackController(engine: engine, configuration: configuration, clock: clock)
        let controller = controller
        let recorder = recorder
        Task { await controller.run() }
        Task {
            for await event in controller.events { recorder.append(event) }
        }
    }

    /// A rig with `count` tracks (`track:1` ... in album `album:A`, 200 s each) already set as the queue.
    static func loaded(
        count: Int = 4, startAt index: Int = 0, play: Bool = true,
        configuration: PlaybackConfiguration = PlaybackConfiguration()
    ) async -> PlaybackRig {
        let rig = PlaybackRig(configuration: configuration)
        let outcome = await rig.controller.setQueue(Self.tracks(count), startAt: index, play: play)
        #expect(outcome == .success)
        await rig.settle()
        return rig
    }

    static func tracks(_ count: Int, container: String = "album:A", prefix: String = "track") -> [QueueItem] {
        (0..<count).map { $0 + 1 }.map { number in
            QueueItem(
                identifier: "\(prefix):\(number)", uri: "file:///music/\(prefix)\(number).ogg",
                title: "Track \(number)", duration: 200, containerIdentifier: container)
        }
    }

    /// Waits until the controller has handled every fact the engine reported.
    func settle() async {
        for _ in 0..<5_000 {
            if await controller.handledFactCount >= engine.emittedFactCount { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the controller never caught up with the engine's facts")
    }

    /// Waits for `condition` to hold (for work done on timers and other tasks).
    func eventually(_ condition: @Sendable () async -> Bool) async {
        for _ in 0..<5_000 {
            if await condition() { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("condition never held")
    }

    /// The events so far, once at least `count` have arrived.
    func events(atLeast count: Int) async -> [PlaybackEvent] {
        let recorder = recorder
        await eventually { recorder.events.count >= count }
        return recorder.events
    }

    /// The output level the controller's engine plays at.
    var level: OutputLevel { controller.level }

    var current: String? {
        get async { await controller.snapshot.identifier }
    }
}

/// Collects the controller's events from its stream.
final class EventRecorder: Sendable {
    private let storage = Mutex<[PlaybackEvent]>([])
    func append(_ event: PlaybackEvent) { storage.withLock { $0.append(event) } }
    var events: [PlaybackEvent] { storage.withLock { $0 } }
}
