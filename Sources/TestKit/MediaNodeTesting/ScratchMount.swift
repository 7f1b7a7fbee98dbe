import Foundation

/// A small tmpfs mounted on a fresh temporary folder, for a test that needs a disk that fills up or
/// turns read-only. Needs root (`mount`); `isAvailable` says whether this machine lets the test mount.
///
/// A read-only remount, not `chmod`: root writes through permission bits, and the tests run as root.
public final class ScratchMount: @unchecked Sendable {
    public let directory: URL
    private var mounted = true

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether a tmpfs can be mounted here (root, and a kernel that allows it in this container).
    public static let isAvailable: Bool = {
        guard let probe = try? ScratchMount(bytes: 64 * 1024) else { return false }
        probe.unmount()
        return true
    }()

    /// Why tests that need a mount are skipped, when they are.
    public static let unavailableReason = "needs root and permission to mount a tmpfs (mount -t tmpfs)"

    public init(bytes: Int) throws {
        directory = try AudioFixtures.makeTemporaryDirectory("mount")
        do {
            try Self.runBlocking("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", directory.path])
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        unmount()
    }

    public func remountReadOnly() async throws {
        try await Self.run("/bin/mount", ["-o", "remount,ro", directory.path])
    }

    public func remountWritable() async throws {
        try await Self.run("/bin/mount", ["-o", "remount,rw", directory.path])
    }

    /// Unmounts (lazily, so a process still holding a file does not keep it) and removes the folder.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? ToolRun.captureBlocking("/bin/umount", ["-l", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Fills the free space with a file of zeros, returns it; removing it gives the space back.
    public func fill(named name: String = "filler") async throws -> URL {
        let filler = directory.appendingPathComponent(name)
        // dd stops with "No space left on device", which is the point.
        _ = try await ToolRun.capture("/bin/dd", ["if=/dev/zero", "of=\(filler.path)", "bs=4096"])
        return filler
    }

    /// Sets or clears the immutable attribute (`chattr +i`), which stops writes even by root.
    /// It blocks its thread for the few milliseconds chattr takes, so that a `defer` can clear it.
    public static func setImmutable(_ path: String, _ immutable: Bool) throws {
        try runBlocking("/usr/bin/chattr", [immutable ? "+i" : "-i", path])
    }

    static func run(_ tool: String, _ arguments: [String]) async throws {
        let (status, output) = try await ToolRun.capture(tool, arguments)
        guard status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(output)")
        }
    }
}

extension ScratchMount {
    /// `run` for the mount itself: `isAvailable` probes from a `static let`, where nothing can await.
    static func runBlocking(_ tool: String, _ arguments: [String]) throws {
        let (status, output) = try ToolRun.captureBlocking(tool, arguments)
        guard status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(output)")
        }
    }
}
