import MediaNodeTesting

extension WAVFile {
    /// How the output from `start` on sounds in 50 ms windows: how many are loud (RMS over 0.02 of full
    /// scale) and how many quiet (under 0.005). Speech has both, words and the pauses between them; a
    /// steady tone has only loud windows, silence only quiet ones.
    func speechWindows(from start: Double = 0) -> (loud: Int, quiet: Int, count: Int) {
        let levels = stride(from: start, to: duration - 0.05, by: 0.05).map { rms(from: $0, length: 0.05) }
        return (levels.filter { $0 > 0.02 }.count, levels.filter { $0 < 0.005 }.count, levels.count)
    }
}
