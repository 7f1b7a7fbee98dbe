import Foundation

extension AudioFixtures {
    /// One Ogg Vorbis file of consecutive tones (44.1 kHz stereo), e.g. 20 s at 440 Hz then 100 s at
    /// 880 Hz: the tone rendered tells which part of the file plays, so a test can check where a seek landed.
    /// A little noise under the tones makes it as large per second as a real episode (about 25 KB), so a
    /// player cannot read the whole file ahead during the first seconds.
    @discardableResult
    public static func writeToneSequence(
        _ parts: [(frequency: Int, seconds: Double)], named fileName: String, in directory: URL
    ) async throws -> URL {
        let url = directory.appendingPathComponent(fileName)
        let raw = directory.appendingPathComponent(fileName + ".raw")
        try writeRawTones(parts, to: raw)
        defer { try? FileManager.default.removeItem(at: raw) }
        try await run("gst-launch-1.0", [
            "-q", "filesrc", "location=\(raw.path)", "!", "rawaudioparse", "format=pcm", "pcm-format=s16le",
            "sample-rate=\(rawRate)", "num-channels=2", "!", "audioconvert", "!", "vorbisenc", "quality=0.9", "!",
            "oggmux", "!", "filesink", "location=\(url.path)",
        ])
        return url
    }

    /// The sample rate of `writeRawTones`' output.
    static let rawRate = 44_100

    /// Consecutive tones with a little noise as raw 16-bit little-endian stereo at `rawRate`, for an encoder.
    static func writeRawTones(_ parts: [(frequency: Int, seconds: Double)], to raw: URL) throws {
        let rate = rawRate
        var samples: [Int16] = []
        var noise: UInt32 = 0x1234_5678
        for part in parts {
            let count = Int((part.seconds * Double(rate)).rounded())
            samples.reserveCapacity(samples.count + 2 * count)
            for index in 0..<count {
                noise = noise &* 1_664_525 &+ 1_013_904_223  // a fixed sequence: the same file every run
                let hiss = (Double(noise >> 16) / 65_536 - 0.5) * 0.008
                let tone = 0.4 * sin(2 * Double.pi * Double(part.frequency) * Double(index) / Double(rate))
                let value = Int16(((tone + hiss) * 32_767).rounded())
                samples.append(value)
                samples.append(value)
            }
        }
        try samples.withUnsafeBytes { Data($0) }.write(to: raw)
    }
}
