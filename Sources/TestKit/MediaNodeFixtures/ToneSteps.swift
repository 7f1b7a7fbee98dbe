import Foundation

/// Audio whose every second names itself: step k is a tone at 500 + 100 k Hz, one second long. Heard anywhere,
/// a step says which second of the file plays; the moment one step gives way to the next marks a whole second,
/// so where playback stops, and where it goes on from, are read from a recording to a few hundredths of a second.
public enum ToneSteps {
    /// The tone of step `k`: multiples of 50 Hz, so a 20 ms window holds whole cycles of every step.
    public static func frequency(ofStep step: Int) -> Int { 500 + 100 * step }

    /// The step a tone of `frequency` is, if it is one.
    public static func step(ofFrequency heard: Double) -> Int? {
        let step = ((heard - 500) / 100).rounded()
        guard step >= 0, step < 1_000, abs(heard - Double(frequency(ofStep: Int(step)))) < 35 else { return nil }
        return Int(step)
    }

    /// Writes `count` one-second steps, from step 0, as an Ogg Vorbis file (see `AudioFixtures.writeToneSequence`).
    @discardableResult
    public static func write(count: Int, named fileName: String, in directory: URL) async throws -> URL {
        try await AudioFixtures.writeToneSequence((0..<count).map { (frequency(ofStep: $0), 1.0) }, named: fileName, in: directory)
    }

    /// A stretch of a recording in which one step, or nothing, is heard.
    public struct Run: Sendable, Equatable, CustomStringConvertible {
        /// The step heard, nil for silence or other sounds.
        public var step: Int?
        public var start: Double
        public var end: Double
        public var description: String {
            String(format: "%@ %.2f-%.2f", step.map { "step \($0)" } ?? "-", start, end)
        }
    }
}

extension WAVFile {
    /// What is heard from `start` to `end`, as runs of one tone step (or of none), in `window`-long stretches;
    /// a single odd window inside a run (a click, a changing level) does not split it, and a step heard in one
    /// window alone (where the music fades in or out within it) counts as nothing heard.
    public func toneStepRuns(from start: Double = 0, to end: Double? = nil, window: Double = 0.02) -> [ToneSteps.Run] {
        let last = min(end ?? duration, duration)
        var steps: [(time: Double, step: Int?)] = []
        var time = max(0, start)
        while time + window <= last {
            let frequency = dominantFrequency(from: time, length: window, silence: 0.02)
            steps.append((time, frequency.flatMap(ToneSteps.step(ofFrequency:))))
            time += window
        }
        // One window that differs from the ones on both sides is taken for them.
        for index in steps.indices.dropFirst().dropLast()
        where steps[index - 1].step == steps[index + 1].step && steps[index].step != steps[index - 1].step {
            steps[index].step = steps[index - 1].step
        }
        for index in steps.indices where steps[index].step != nil {
            let before = index > 0 ? steps[index - 1].step : nil
            let after = index + 1 < steps.count ? steps[index + 1].step : nil
            if before != steps[index].step && after != steps[index].step { steps[index].step = nil }
        }
        var runs: [ToneSteps.Run] = []
        for (time, step) in steps {
            if let lastRun = runs.last, lastRun.step == step {
                runs[runs.count - 1].end = time + window
            } else {
                runs.append(ToneSteps.Run(step: step, start: time, end: time + window))
            }
        }
        return runs
    }
}

extension Array where Element == ToneSteps.Run {
    /// The runs of music, without the silences and other sounds between them.
    public var heard: [ToneSteps.Run] { filter { $0.step != nil } }

    /// Whether the steps heard go up one at a time (a step may be heard twice, split by a pause).
    public var isInOrder: Bool {
        let steps = heard.compactMap(\.step)
        return zip(steps, steps.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 }
    }

    /// Where in the file the music stood when the last run before `time` ended: its step plus the time since
    /// that step began, read from the run before it (nil when that run is not the step before, heard up to it).
    public func positionWhereMusicStopped(before time: Double) -> Double? {
        let music = heard.filter { $0.end <= time + 0.001 }
        guard music.count >= 2, let last = music.last, let step = last.step,
              music[music.count - 2].step == step - 1, abs(music[music.count - 2].end - last.start) < 0.03
        else { return nil }
        return Double(step) + (last.end - last.start)
    }

    /// Where in the file the music went on from at the first run after `time`: the next step's start minus the
    /// time heard before it (nil when the run after it is not the next step, heard on without a break).
    public func positionWhereMusicResumed(after time: Double) -> (position: Double, at: Double)? {
        let music = heard.filter { $0.start >= time - 0.001 }
        guard music.count >= 2, let first = music.first, let step = first.step,
              music[1].step == step + 1, abs(music[1].start - first.end) < 0.03
        else { return nil }
        return (Double(step + 1) - (first.end - first.start), first.start)
    }
}

extension WAVFile {
    /// How loud the tone steps are between `start` and `start + length`, whichever plays: in each 20 ms window
    /// the level of the loudest of `steps` (other tones at multiples of 50 Hz do not count), averaged.
    public func toneStepLevel(from start: Double, length: Double, steps: Range<Int>) -> Double {
        let window = 0.02
        let windows = stride(from: start, to: start + length - window / 2, by: window).map { time in
            steps.map { toneLevel(Double(ToneSteps.frequency(ofStep: $0)), from: time, length: window) }.max() ?? 0
        }
        return windows.isEmpty ? 0 : windows.reduce(0, +) / Double(windows.count)
    }
}
