import Foundation

/// What one process holds in memory, read from /proc/PID/smaps_rollup: resident (RSS), its proportional
/// share (PSS: a shared library page counts 1/n in each of the n processes mapping it), and the split that
/// says what a reduction could reach: anonymous memory (heaps, stacks: the process's own) against pages of
/// mapped files (the binary and its libraries, shared with any other process that maps them).
struct ProcessMemory {
    var rssKiB = 0
    var pssKiB = 0
    var anonymousKiB = 0
    var pssAnonymousKiB = 0
    var pssFileKiB = 0

    /// The file-backed part of RSS (shared memory, small here, counts with it).
    var fileKiB: Int { rssKiB - anonymousKiB }

    /// Reads `pid`'s rollup; nil when the process is gone or the kernel has no smaps_rollup.
    init?(pid: Int32) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "Rss:": rssKiB = value
            case "Pss:": pssKiB = value
            case "Anonymous:": anonymousKiB = value
            case "Pss_Anon:": pssAnonymousKiB = value
            case "Pss_File:": pssFileKiB = value
            default: break
            }
        }
        guard rssKiB > 0 else { return nil }
    }

    static let header = "  RSS    PSS  | anon  file | PSS anon  PSS file   (MiB)"

    /// One table row: RSS, PSS, anonymous, file-backed, and PSS split the same way.
    var row: String {
        String(format: "%5.1f  %5.1f  | %4.1f  %4.1f | %7.1f  %8.1f", mib(rssKiB), mib(pssKiB), mib(anonymousKiB),
               mib(fileKiB), mib(pssAnonymousKiB), mib(pssFileKiB))
    }

    /// Peak resident memory (VmHWM) from /proc/PID/status, in KiB.
    static func peakKiB(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }
    }
}

func mib(_ kib: Int) -> Double { Double(kib) / 1024 }

/// Resident memory by what is mapped, from /proc/PID/smaps: each file (the binary, each library) and the
/// anonymous kinds ([heap], [stack], and unnamed mappings, which are malloc's arenas and thread stacks).
struct MappedFiles {
    struct Entry {
        var name: String
        var rssKiB = 0
        var pssKiB = 0
    }

    var entries: [Entry] = []

    init?(pid: Int32) {
        // Read to the end: /proc files state no size, and a read of the stated size stops after the first page.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile(), !data.isEmpty
        else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        var byName: [String: Entry] = [:]
        var current = ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = parts.first else { continue }
            if first.contains("-"), !first.hasSuffix(":") {
                // A mapping's header: address perms offset device inode [path].
                current = parts.count >= 6 ? parts[5].trimmingCharacters(in: .whitespaces) : "[anonymous]"
                continue
            }
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            if first == "Rss:" { byName[current, default: Entry(name: current)].rssKiB += value }
            if first == "Pss:" { byName[current, default: Entry(name: current)].pssKiB += value }
        }
        entries = byName.values.sorted { $0.rssKiB > $1.rssKiB }
    }

    /// The `count` largest by RSS, one line each, with what the rest add up to.
    func lines(top count: Int) -> [String] {
        var lines = entries.prefix(count).map {
            String(format: "    %6.1f  %6.1f  %@", mib($0.rssKiB), mib($0.pssKiB), ($0.name as NSString).lastPathComponent)
        }
        let rest = entries.dropFirst(count)
        lines.append(String(format: "    %6.1f  %6.1f  (%d more mappings)", mib(rest.reduce(0) { $0 + $1.rssKiB }),
                            mib(rest.reduce(0) { $0 + $1.pssKiB }), rest.count))
        return lines
    }
}
