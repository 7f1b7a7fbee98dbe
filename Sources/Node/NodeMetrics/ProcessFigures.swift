import Foundation

/// The process's resident memory and CPU time, from /proc/self: in a rig they are the whole process's,
/// as the rig's own report counts them.
public struct ProcessFigures: Sendable, Equatable {
    public var residentKiB: Int
    public var cpuSeconds: Double

    public init(residentKiB: Int, cpuSeconds: Double) {
        self.residentKiB = residentKiB
        self.cpuSeconds = cpuSeconds
    }

    /// Reads them now; zeros where /proc cannot be read (not Linux).
    public static func read() -> ProcessFigures {
        ProcessFigures(residentKiB: residentKiB() ?? 0, cpuSeconds: cpuSeconds() ?? 0)
    }

    /// `VmRSS` of /proc/self/status, in kB (which the kernel means as KiB).
    static func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// utime and stime of /proc/self/stat, in clock ticks. The fields after the command name are counted
    /// from its closing parenthesis: the name itself may hold spaces.
    static func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // Fields 14 and 15 of proc(5); the state (field 3) is the first after the name.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
