// MARK: - The output level (Mopidy's mixer)

/// The one owner of everything that scales what is heard: the listener's level and mute, the ducks (an
/// `interrupt` with `duck`, an announcement), the speed-dependent gain, and each item's loudness gain.
///
/// It holds the session's factors as one `OutputGain`, which clamps the level as it is set (the only
/// clamp), hands them to the engine, and shows `VolumeState` through `show` before the change returns, so
/// a command's reply never overtakes the volume it set. The transport asks it for the ducks and for each
/// load's loudness gain; nothing else holds the level.
///
/// Threading: an actor whose changes run one at a time in arrival order, each until the engine has the new
/// factors, so two changes never reach the engine out of order. A change of level never waits for the
/// transport (a load over a slow network).
public actor OutputLevel {
    /// Why the music is ducked; it comes back only once every reason has ended.
    enum Duck: Hashable {
        case interruption, announcement
    }

    let engine: any AudioEngine
    /// The duck's factor (`PlaybackConfiguration.duckVolume`).
    let duckVolume: Double
    /// Where each item's loudness comes from (nil: every item plays as it is), and the target.
    let loudnessSource: (any LoudnessSource)?
    let levelling: LoudnessLevelling
    /// Marks `P/volume`; called in a change that changed what it shows, before the change returns.
    private let show: @Sendable (VolumeState) -> Void
    /// The session's factors; `gain.level` is the listener's level.
    private(set) var gain = OutputGain()
    private var ducks: Set<Duck> = []
    private let turns = Turns()

    public init(
        engine: any AudioEngine, duckVolume: Double = PlaybackConfiguration().duckVolume,
        loudness: (any LoudnessSource)? = nil, levelling: LoudnessLevelling = LoudnessLevelling(),
        show: @escaping @Sendable (VolumeState) -> Void = { _ in }
    ) {
        self.engine = engine
        self.duckVolume = duckVolume
        self.loudnessSource = loudness
        self.levelling = levelling
        self.show = show
    }

    // MARK: - Reading

    public var state: VolumeState { VolumeState(volume: gain.level, isMuted: gain.isMuted, speedGainDb: gain.speedDb) }

    /// The listener's level, which an announcement without a `volume` plays at.
    public var volume: Double { gain.level }

    // MARK: - The listener's level, mute and the speed gain

    /// Sets the listener's level, 0...1 (clamped). A duck in progress stays: the output stays below the level.
    @discardableResult
    public func setVolume(_ level: Double) async -> PlaybackOutcome {
        await change { $0.level = level }
        return .success
    }

    /// Moves the level by `step` (negative: down), stopping at 0 and 1; returns the new level.
    public func stepVolume(by step: Double) async -> Double {
        // Rounded to the step's grid, so twenty steps of 0.05 land on 1 exactly, not 0.9999999.
        await change { $0.level = (($0.level + step) * 1_000_000).rounded() / 1_000_000 }
        return gain.level
    }

    /// Silences the output, or brings back the level; the target state, never a toggle.
    @discardableResult
    public func setMuted(_ muted: Bool) async -> PlaybackOutcome {
        await change { $0.isMuted = muted }
        return .success
    }

    /// Sets the speed-dependent gain the output moves to (dB, clamped to 0...12); the engine ramps to it.
    public func setSpeedGain(_ decibels: Double) async {
        await change { $0.speedDb = decibels }
    }

    /// Gives the output the level an earlier run left, before anything is shown: the node shows it with the
    /// rest of its initial state. Returns what is then shown.
    public func restore(volume level: Double) async -> VolumeState {
        await turns.exclusively {
            gain.level = level
            await engine.setOutputGain(gain)
        }
        return state
    }

    // MARK: - Ducks (the transport's)

    /// Lowers the music for `reason`, or ends that reason; the output is back at the level once none is left.
    func setDucked(_ isDucked: Bool, for reason: Duck) async {
        await turns.exclusively {
            guard ducks.contains(reason) != isDucked else { return }
            if isDucked { ducks.insert(reason) } else { ducks.remove(reason) }
            gain.duck = ducks.isEmpty ? 1 : duckVolume
            await engine.setOutputGain(gain)
        }
    }

    func isDucked(for reason: Duck) -> Bool { ducks.contains(reason) }

    // MARK: - Applying

    /// Changes the factors, gives the engine the new ones, and shows them if what `P/volume` shows changed;
    /// one change at a time.
    private func change(_ body: (inout OutputGain) -> Void) async {
        await turns.exclusively {
            let shown = state
            body(&gain)
            await engine.setOutputGain(gain)
            if state != shown { show(state) }
        }
    }
}
