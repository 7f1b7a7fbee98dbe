/// What `P/volume` shows: the listener's level, mute, and the speed gain the output is at or moving to.
public struct VolumeState: Sendable, Equatable {
    /// The listener's level, 0...1, whatever a duck does to the output.
    public var volume: Double
    public var isMuted: Bool
    /// The speed-dependent gain the output moves to, dB (reached within about a second).
    public var speedGainDb: Double

    public init(volume: Double = 1, isMuted: Bool = false, speedGainDb: Double = 0) {
        self.volume = volume
        self.isMuted = isMuted
        self.speedGainDb = speedGainDb
    }
}
