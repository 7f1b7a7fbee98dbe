import Foundation

public enum WAVFileError: Error, CustomStringConvertible {
    case unreadable(String)
    case malformed(String)
    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read WAV: \(reason)"
        case .malformed(let reason): "not a valid WAV: \(reason)"
        }
    }
}

/// A 16-bit PCM WAV file read into memory, with the tone analysis tests need to tell which generated
/// track played, for how long, and whether playback left gaps.
///
/// Reads files that are still being written: the header's sizes decide what counts, and bytes appended
/// after them (a writer between its append and its header update) are ignored.
public struct WAVFile: Sendable {
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples, `channels` per frame.
    public var samples: [Int16]
    /// The size the header's `data` chunk declares, in bytes.
    public var declaredDataSize: Int
    /// The `data` bytes actually present in the file.
    public var availableDataSize: Int
    /// The RIFF chunk size agrees with the file's chunks (a reader would trust this header).
    public var riffSizeIsConsistent: Bool

    public var frameCount: Int { samples.count / max(1, channels) }
    /// Seconds of audio the header declares and the file holds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw WAVFileError.unreadable("\(url.path): \(error)") }
        try self.init(bytes: [UInt8](data))
    }

    public init(bytes: [UInt8]) throws {
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw WAVFileError.malformed("no RIFF/WAVE header")
        }
        var format: (channels: Int, rate: Int, bits: Int, code: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let (name, size) = (tag(offset), u32(offset + 4))
            let body = offset + 8
            if name == "fmt ", body + 16 <= bytes.count {
                format = (u16(body + 2), u32(body + 4), u16(body + 14), u16(body))
            } else if name == "data" {
                guard let format else { throw WAVFileError.malformed("data before fmt") }
                guard format.code == 1, format.bits == 16, format.channels > 0 else {
                    throw WAVFileError.malformed("only 16-bit PCM is supported")
                }
                let available = bytes.count - body
                let usable = min(size, available) / (2 * format.channels) * (2 * format.channels)
                sampleRate = format.rate
                channels = format.channels
                declaredDataSize = size
                availableDataSize = available
                riffSizeIsConsistent = u32(4) == body - 8 + size
                samples = bytes[body..<body + usable].withUnsafeBytes { raw in
                    (0..<usable / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
                }
                return
            }
            offset = body + size + (size & 1)
        }
        throw WAVFileError.malformed("no data chunk")
    }
}

// MARK: - Tone analysis

extension WAVFile {
    /// The first channel between `start` and `start + length` seconds, as -1...1 values.
    public func channel0(from start: Double, length: Double) -> [Double] {
        let first = max(0, min(frameCount, Int(start * Double(sampleRate))))
        let last = max(first, min(frameCount, Int((start + length) * Double(sampleRate))))
        return (first..<last).map { Double(samples[$0 * channels]) / 32768 }
    }

    /// Root-mean-square level (0...1) of a window: near 0 for silence, about 0.35 for a half-volume sine.
    public func rms(from start: Double, length: Double) -> Double {
        let values = channel0(from: start, length: length)
        guard !values.isEmpty else { return 0 }
        return (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }

    /// The frequency of the tone in a window, from its zero crossings; nil for silence.
    /// Meant for single sine tones such as `AudioFixtures.writeTone` makes, not for music.
    public func dominantFrequency(from start: Double, length: Double, silence: Double = 0.01) -> Double? {
        let values = channel0(from: start, length: length)
        guard values.count > 1, rms(from: start, length: length) > silence else { return nil }
        // Hysteresis: a crossing counts only once the signal has left a small band around zero, so
        // quantisation noise near zero does not add crossings.
        let band = silence / 2
        var crossings = 0
        var sign = 0
        for value in values {
            let now = value > band ? 1 : (value < -band ? -1 : 0)
            if now != 0 {
                if sign != 0 && now != sign { crossings += 1 }
                sign = now
            }
        }
        return Double(crossings) / 2 / (Double(values.count) / Double(sampleRate))
    }

    /// The dominant frequency of each consecutive window (nil where silent), to see which tones played in
    /// which order.
    public func frequencyTimeline(window: Double = 0.1) -> [Double?] {
        stride(from: 0.0, to: duration - window / 2, by: window).map { dominantFrequency(from: $0, length: window) }
    }

    /// The longest run of near-silent samples (|x| below `threshold`) in seconds, within a window. A sine
    /// passes zero in microseconds, so any run longer than a millisecond or two is a gap in the audio.
    public func longestSilence(from start: Double = 0, length: Double? = nil, threshold: Double = 0.01) -> Double {
        let values = channel0(from: start, length: length ?? duration - start)
        var longest = 0, run = 0
        for value in values {
            if abs(value) < threshold { run += 1; longest = max(longest, run) } else { run = 0 }
        }
        return Double(longest) / Double(sampleRate)
    }
}

extension WAVFile {
    /// The start of the first `window`-long stretch from `start` on whose level satisfies `matches`, with the
    /// stretch after it satisfying it too (so one odd window is not taken for a change of level).
    public func firstWindow(from start: Double, window: Double = 0.01, where matches: (Double) -> Bool) -> Double? {
        var time = max(0, start)
        while time + 2 * window <= duration {
            if matches(rms(from: time, length: window)), matches(rms(from: time + window, length: window)) { return time }
            time += window
        }
        return nil
    }
}

// MARK: - One tone among others

extension WAVFile {
    /// The amplitude of the sine at `frequency` in channel 0 between `start` and `start + length` (Goertzel),
    /// as a fraction of full scale: a tone mixed with others is still measured on its own. A window holding
    /// a whole number of the tone's cycles measures it exactly; other tones with a whole number of cycles in
    /// it are not seen at all.
    public func toneLevel(_ frequency: Double, from start: Double, length: Double) -> Double {
        let first = max(0, min(frameCount, Int(start * Double(sampleRate))))
        let last = max(first, min(frameCount, Int((start + length) * Double(sampleRate))))
        return toneLevel(frequency, frames: first..<last)
    }

    /// The same over a range of frames.
    public func toneLevel(_ frequency: Double, frames: Range<Int>) -> Double {
        let frames = frames.clamped(to: 0..<frameCount)
        guard !frames.isEmpty else { return 0 }
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        let coefficient = 2 * cos(omega)
        var previous = 0.0, beforePrevious = 0.0
        for frame in frames {
            let current = Double(samples[frame * channels]) / 32768 + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * sqrt(max(0, power)) / Double(frames.count)
    }

    /// Where the tone at `frequency` is heard from `start` on: the first and the last moment a `window`-long
    /// stretch holds it above `threshold`, each the middle of the stretch where it reaches half the tone's
    /// own level (so a tone that starts or stops between two stretches is placed within `step`). Nil when it
    /// is not heard.
    public func toneSpan(_ frequency: Double, from start: Double = 0, to end: Double? = nil, threshold: Double = 0.05,
                         window: Double = 0.01, step: Double = 0.001) -> (start: Double, end: Double)? {
        let length = Int(window * Double(sampleRate))
        let hop = max(1, Int(step * Double(sampleRate)))
        let last = min(frameCount, end.map { Int($0 * Double(sampleRate)) } ?? frameCount) - length
        var frame = max(0, Int(start * Double(sampleRate)))
        var levels: [(frame: Int, level: Double)] = []
        while frame <= last {
            levels.append((frame, toneLevel(frequency, frames: frame..<frame + length)))
            frame += hop
        }
        guard let firstHeard = levels.firstIndex(where: { $0.level > threshold }),
              let lastHeard = levels.lastIndex(where: { $0.level > threshold }) else { return nil }
        let heard = levels[firstHeard...lastHeard].map(\.level).sorted()
        let half = heard[heard.count / 2] / 2
        let rise = levels[firstHeard...].first { $0.level >= half }?.frame ?? levels[firstHeard].frame
        let fall = levels[...lastHeard].last { $0.level >= half }?.frame ?? levels[lastHeard].frame
        let seconds = { (frame: Int) in (Double(frame) + Double(length) / 2) / Double(self.sampleRate) }
        return (seconds(rise), seconds(fall))
    }
}
