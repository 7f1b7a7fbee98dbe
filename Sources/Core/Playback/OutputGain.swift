import Foundation

// MARK: - The one gain stage

/// Every factor that scales what the listener hears, multiplied in one place: `amplitude(speedDb:item:)`.
///
/// The core decides each factor (the listener's level, the duck, mute, the speed gain, each item's
/// loudness gain); the engine calls `amplitude` as the audio reaches its output, because only there is it
/// known which item is being heard (a gapless switch happens on a streaming thread) and how far a speed
/// ramp has got. No other code multiplies gains.
public struct OutputGain: Sendable, Equatable {
    /// The listener's level, 0...1, before the cubic curve. Clamped here, as it is set, and nowhere else:
    /// whoever holds an `OutputGain` holds a level in range (NaN counts as 0, silence).
    public var level: Double {
        get { clampedLevel }
        set { clampedLevel = Self.clamp(newValue, 0, 1) }
    }
    /// The duck's factor while an interruption or an announcement ducks playback, else 1; 0...1.
    public var duck: Double {
        get { clampedDuck }
        set { clampedDuck = Self.clamp(newValue, 0, 1) }
    }
    public var isMuted: Bool
    /// The speed-dependent gain the output moves to, in dB (0...`SpeedVolume.maximumGainDb`); the engine
    /// ramps to it over `rampSeconds`.
    public var speedDb: Double {
        get { clampedSpeedDb }
        set { clampedSpeedDb = Self.clamp(newValue, 0, SpeedVolume.maximumGainDb) }
    }

    private var clampedLevel = 1.0
    private var clampedDuck = 1.0
    private var clampedSpeedDb = 0.0

    /// Over about a second, so a change of speed gain is heard as a swell, not a step.
    public static let rampSeconds = 1.0
    /// The largest amplitude the output stage takes (GStreamer's `volume` element stops at 10).
    public static let maximumAmplitude = 10.0

    public init(level: Double = 1, duck: Double = 1, isMuted: Bool = false, speedDb: Double = 0) {
        self.isMuted = isMuted
        self.level = level
        self.duck = duck
        self.speedDb = speedDb
    }

    /// The output amplitude for `item` with the speed gain at `speedDb` (the ramp's value now, between two
    /// targets this value held): the level cubed (the curve desktop mixers use, so 0.5 sounds about half as
    /// loud), times the duck, the speed and loudness gains, zero while muted; never more than brings the
    /// item's peak to full scale (an unknown peak counts as full scale), so no gain makes the output clip.
    public func amplitude(speedDb: Double, item: ItemGain) -> Double {
        guard !isMuted else { return 0 }
        let raw = level * level * level * duck * Self.amplitude(decibels: speedDb + item.loudnessDb)
        return min(raw, item.ceiling, Self.maximumAmplitude)
    }

    public static func amplitude(decibels: Double) -> Double {
        decibels.isFinite ? pow(10, decibels / 20) : 1
    }

    static func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double {
        value.isNaN ? low : min(high, max(low, value))
    }
}

/// What one item adds to the output gain: its loudness gain, and the peak that bounds it.
public struct ItemGain: Sendable, Equatable {
    /// The gain that brings the item to the loudness target, in dB (0: as recorded).
    public var loudnessDb: Double
    /// The item's sample peak (1.0 = full scale), when its tags or a measurement say; nil: unknown.
    public var peak: Double?

    public static let unity = ItemGain(loudnessDb: 0, peak: nil)

    public init(loudnessDb: Double, peak: Double?) {
        self.loudnessDb = loudnessDb.isFinite ? loudnessDb : 0
        self.peak = peak.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }

    /// The largest amplitude that keeps the item's peak at or below full scale.
    public var ceiling: Double { 1 / max(peak ?? 1, 1 / OutputGain.maximumAmplitude) }
}

// MARK: - Speed-dependent volume

/// The gain that covers road noise: `dbPer100` decibels per 100 km/h, linearly, at most +12 dB.
public struct SpeedVolume: Sendable, Equatable {
    public static let maximumGainDb = 12.0
    /// Faster than any road vehicle: a reading above it is a faulty sender, not a speed.
    public static let maximumSpeed = 1_000.0

    /// Decibels per 100 km/h; 0 turns the feature off.
    public var dbPer100: Double

    public init(dbPer100: Double) { self.dbPer100 = dbPer100 }

    /// The gain at `kmh`; nil for a reading that is no speed (negative, not finite, absurdly high).
    public func gainDb(atSpeed kmh: Double) -> Double? {
        guard kmh.isFinite, kmh >= 0, kmh <= Self.maximumSpeed else { return nil }
        return min(Self.maximumGainDb, max(0, kmh / 100 * dbPer100))
    }
}
