import Foundation

/// A child process the cancellation handler may stop from another thread.
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    init(_ process: Process) { self.process = process }
    func terminate() { if process.isRunning { process.terminate() } }
}
