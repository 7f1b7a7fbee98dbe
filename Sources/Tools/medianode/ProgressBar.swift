import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Progress for the catalog commands: a redrawn bar when standard output is a terminal, otherwise a plain
/// line at every tenth of the way, so logs and pipes stay readable.
final class ProgressBar: Sendable {
    let isTerminal: Bool
    private let state = Mutex(State())

    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var lastTenth = -1
        var drawn = false
    }

    init(isTerminal: Bool = isatty(STDOUT_FILENO) != 0) { self.isTerminal = isTerminal }

    func update(_ label: String, done: Int, total: Int) {
        let line: String? = state.withLock { state in
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
            if isTerminal {
                let now = ContinuousClock.now
                if let last = state.lastDraw, now - last < .milliseconds(100), done < total { return nil }
                state.lastDraw = now
                state.drawn = true
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                return "\r\(label) [\(bar)] \(Int(fraction * 100))% (\(done)/\(total))\u{1B}[K"
            }
            let tenth = Int(fraction * 10)
            guard tenth > state.lastTenth else { return nil }
            state.lastTenth = tenth
            return "\(label): \(done)/\(total)\n"
        }
        if let line { write(line) }
    }

    /// Ends the bar's line, so what follows starts on its own.
    func finish() {
        let drawn = state.withLock { state in
            defer { state = State() }
            return state.drawn
        }
        if isTerminal && drawn { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
