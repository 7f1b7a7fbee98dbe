import Foundation

/// HTTP(S) GETs on libcurl with back-pressure: a body goes to a sink as it arrives, libcurl reads no
/// further than the sink has taken, and a body past the request's cap is refused at the byte that crosses
/// it (a declared Content-Length past it, at the headers). Catalogs and artwork use `data`; a download
/// manager uses `download`, which streams into a file, resumes with a Range request and reports progress.
/// Cancelling the calling task ends the transfer at once.
public struct HTTPTransferClient: Sendable {
    public init() {}

    /// Runs `request` into `sink`. The sink is used on the transfer thread until this returns.
    public func perform(
        _ request: HTTPTransferRequest, into sink: any HTTPBodySink,
        progress: (@Sendable (HTTPTransferProgress) -> Void)? = nil
    ) async throws -> HTTPTransferResult {
        let transfer = try CurlTransfer(request, sink: sink, progress: progress)
        let loop = TransferLoop.shared
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(continuation)
                loop.add(transfer)
            }
        } onCancel: {
            transfer.cancel()
            loop.wake()
        }
    }

    /// The whole body in memory; `request.maxBodyBytes` bounds it (nil: 64 MiB).
    public func data(_ request: HTTPTransferRequest) async throws -> (HTTPTransferResult, Data) {
        var request = request
        let cap = request.maxBodyBytes ?? (64 << 20)
        request.maxBodyBytes = cap
        let sink = HTTPMemorySink(limit: Int(clamping: cap))
        let result = try await perform(request, into: sink)
        return (result, sink.take())
    }

    /// Streams the body into `file`. With `resume`, asks for the bytes past what the file already holds;
    /// a server that ignores the Range request is detected (`rangeIgnored`) and the file rewritten whole.
    public func download(
        _ request: HTTPTransferRequest, to file: URL, resume: Bool = true,
        progress: (@Sendable (HTTPTransferProgress) -> Void)? = nil
    ) async throws -> HTTPTransferResult {
        var request = request
        if resume, let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64, size > 0 {
            request.resumeFrom = size
            request.acceptsCompression = false
        }
        let sink = HTTPFileSink(url: file)
        let result = try await perform(request, into: sink, progress: progress)
        try sink.finish()
        return result
    }
}
