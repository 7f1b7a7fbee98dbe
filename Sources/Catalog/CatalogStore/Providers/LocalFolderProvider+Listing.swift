import Foundation

// MARK: - Listing the folders: readdir and stat, not FileManager's enumerator (which costs ~0.1 ms a file)

extension LocalFolderProvider {
    /// One audio file or cover image found under the roots, with what decides whether it changed.
    struct Candidate: Sendable {
        var path: String
        var size: Int64
        /// Seconds since the epoch, computed exactly as Foundation's modification date, so records stored
        /// by earlier versions still compare equal.
        var modified: Double
        var isAudio: Bool
    }

    /// Audio files and cover images under the roots, listed before any is read so a progress bar knows the
    /// total. Hidden files and folders are skipped; symbolic links to files are followed, links to folders
    /// are not (a loop on a stick must not hang the scan).
    func listCandidates() -> [Candidate] {
        var found: [Candidate] = []
        let covers = Set(Self.coverNames)
        for root in roots {
            var pending = [root.path]
            while let directory = pending.popLast() {
                guard let stream = LocalPath.withCString(directory, { opendir($0) }) else { continue }
                defer { closedir(stream) }
                while let entry = readdir(stream) {
                    // The name's bytes as they are: a name that is not UTF-8 is kept, not repaired into
                    // one no file has (see LocalPath).
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        LocalPath.string(fromBytes: raw.prefix { $0 != 0 })
                    }
                    guard !name.hasPrefix(".") else { continue }
                    let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                    let type = entry.pointee.d_type
                    if type == UInt8(DT_DIR) {
                        pending.append(path)
                        continue
                    }
                    let lowered = name.lowercased()
                    let isAudio = Self.audioExtensions.contains(String(Self.fileExtension(lowered)))
                    guard isAudio || covers.contains(lowered) else {
                        if type == UInt8(DT_UNKNOWN), Self.isDirectory(path) { pending.append(path) }
                        continue
                    }
                    var info = stat()
                    guard LocalPath.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                    found.append(Candidate(
                        path: path, size: Int64(info.st_size), modified: Self.modificationTime(info), isAudio: isAudio))
                }
            }
        }
        return found
    }

    static func fileExtension(_ name: String) -> Substring {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...]
    }

    /// Foundation's formula (through the reference date), bit for bit.
    static func modificationTime(_ info: stat) -> Double {
        let sinceReference = Double(info.st_mtim.tv_sec) - Date.timeIntervalBetween1970AndReferenceDate
            + Double(info.st_mtim.tv_nsec) / 1.0e9
        return Date(timeIntervalSinceReferenceDate: sinceReference).timeIntervalSince1970
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return LocalPath.withCString(path) { lstat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
