import Foundation
import HTTPTransfer

/// Downloads an announcement's clip into a file of its own before it plays, within caps that keep a
/// huge, endless or stalled body from filling the disk or holding the queue.
struct ClipFetcher: Sendable {
    /// A spoken prompt or chime is kilobytes; a long message a few megabytes.
    static let maximumBytes: Int64 = 20 << 20
    static let maximumSeconds = 30

    let directory: URL
    private let client = HTTPTransferClient()

    init(directory: URL) {
        self.directory = directory
    }

    func fetch(_ url: URL) async throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("announcement-\(UUID().uuidString.lowercased())")
        let request = HTTPTransferRequest(
            url: url, connectTimeout: .seconds(5), idleTimeout: .seconds(10),
            totalTimeout: .seconds(Self.maximumSeconds), maxBodyBytes: Self.maximumBytes)
        do {
            let result = try await client.download(request, to: file, resume: false)
            guard (200..<300).contains(result.head.status) else {
                throw ClipError("\(url.absoluteString) answered HTTP \(result.head.status)")
            }
            // A web page (a captive portal's login, an error page) is not a clip: said as such, before the
            // music is touched, rather than as the decoder's "missing plug-in".
            if let type = result.head.header("content-type")?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased(),
               type.hasPrefix("text/") || type.contains("html") || type.contains("xml") || type.contains("json") {
                throw ClipError("\(url.absoluteString) sent \(type), not audio")
            }
            guard result.received > 0 else { throw ClipError("\(url.absoluteString) sent an empty body") }
            return file
        } catch {
            try? FileManager.default.removeItem(at: file)
            if let transfer = error as? HTTPTransferError {
                throw ClipError("\(url.absoluteString): \(transfer)")
            }
            throw error
        }
    }
}
