import Foundation

/// What the whole process (nodes and driver) holds and has spent.
struct ProcessUsage {
    var residentMiB: Double
    var peakResidentMiB: Double
    var cpuSeconds: Double
    var threads: Int
    /// Open file descriptors: what a fleet runs out of first (`ulimit -n`).
    var descriptors: Int

    static func now() -> ProcessUsage {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                return number.flatMap { Double($0) } ?? 0
            }
            return 0
        }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(residentMiB: field("VmRSS") / 1024, peakResidentMiB: field("VmHWM") / 1024,
                            cpuSeconds: cpu, threads: Int(field("Threads")),
                            descriptors: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0)
    }
}
