import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer's body goes, as it arrives. Called on the transfer thread, one call at a time; libcurl
/// reads no more from the socket until `write` returns, so a sink is the transfer's back-pressure.
/// Throwing from either call ends the transfer with `HTTPTransferError.sink`.
public protocol HTTPBodySink: AnyObject {
    /// The final response's head, before its first body byte (or at the end, for an empty body).
    func begin(_ head: HTTPResponseHead, offset: Int64) throws
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Keeps the body in one buffer that grows to at most `limit` bytes, sized at once from a declared length.
public final class HTTPMemorySink: HTTPBodySink {
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0
    public private(set) var count = 0
    let limit: Int

    public init(limit: Int) { self.limit = max(0, limit) }

    deinit { free(buffer) }

    public func begin(_ head: HTTPResponseHead, offset: Int64) throws {
        if let declared = head.contentLength, declared > 0, declared <= Int64(limit) { try reserve(Int(declared)) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let needed = count + bytes.count
        if needed > capacity {
            // Doubling, but never past the cap: the cap, not the growth rule, bounds what a body costs.
            try reserve(min(max(needed, capacity * 2, 16 << 10), max(needed, limit)))
        }
        (buffer! + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count = needed
    }

    private func reserve(_ size: Int) throws {
        guard size > capacity else { return }
        guard let grown = realloc(buffer, size) else { throw HTTPTransferError.sink("out of memory for \(size) bytes") }
        buffer = grown
        capacity = size
    }

    /// The body, handed over without a copy; the sink is empty afterwards.
    public func take() -> Data {
        guard let buffer, count > 0 else { return Data() }
        let data = Data(bytesNoCopy: buffer, count: count, deallocator: .free)
        self.buffer = nil
        capacity = 0
        count = 0
        return data
    }
}

/// Writes the body to a file: from the resume offset when the server honoured the Range request, from the
/// start (the file truncated) when it sent the whole body instead. Bodies of non-2xx answers are dropped,
/// and the file is left as it was.
public final class HTTPFileSink: HTTPBodySink {
    public let url: URL
    private var descriptor: Int32 = -1
    /// Whether the answer's body is the file's content (2xx).
    private var accepting = false

    public init(url: URL) { self.url = url }

    deinit { if descriptor >= 0 { close(descriptor) } }

    public func begin(_ head: HTTPResponseHead, offset: Int64) throws {
        accepting = (200...299).contains(head.status)
        guard accepting else { return }
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HTTPTransferError.sink("\(url.path): \(String(cString: strerror(errno)))") }
        guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw HTTPTransferError.sink("\(url.path): \(String(cString: strerror(errno)))")
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard accepting, var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw HTTPTransferError.sink("\(url.path): \(String(cString: strerror(errno)))")
            }
            left -= written
            next += written
        }
    }

    /// Flushes and closes the file; call once the transfer ended.
    public func finish() throws {
        guard descriptor >= 0 else { return }
        defer {
            close(descriptor)
            descriptor = -1
        }
        guard fsync(descriptor) == 0 else { throw HTTPTransferError.sink("\(url.path): \(String(cString: strerror(errno)))") }
    }
}
