import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The smallest HTTP server a Prometheus scrape needs: `GET /metrics` on one listening socket, answered
/// on one thread of its own, one connection at a time, then closed.
///
/// Why not SwiftNIO or a framework: a scrape is one short request every few seconds from one client, and
/// the node must not pay an event loop's threads (a rig runs a thousand nodes) or minutes of build for it.
/// Why not plain blocking calls: a client that connects and says nothing must not hold the thread, so
/// each read waits with poll() for at most two seconds, and the accept loop wakes every half second to
/// see whether it should stop.
public final class MetricsHTTPListener: Sendable {
    /// The port bound (the one asked for, or the kernel's choice for port 0).
    public let port: Int
    private let socket: Int32
    private let render: @Sendable () -> [UInt8]
    private let isStopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Binds `host:port` and starts answering.
    /// - Parameter render: the Prometheus text, made on the listener's thread for each scrape.
    public init(host: String, port: Int, render: @escaping @Sendable () -> [UInt8]) throws(ListenError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &found)
        guard lookup == 0, let address = found else {
            throw ListenError("cannot resolve \(host): \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(found) }
        let descriptor = Glibc.socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ListenError("socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, listen(descriptor, 16) == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw ListenError("cannot listen on \(host):\(port): \(message)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let family = bound.ss_family
        let boundPort = withUnsafePointer(to: &bound) { pointer -> UInt16 in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        self.port = Int(UInt16(bigEndian: boundPort))
        self.socket = descriptor
        self.render = render
        let thread = Thread { [self] in serve() }
        thread.name = "metrics-http"
        thread.start()
    }

    /// Stops answering and closes the socket; returns once the thread has finished.
    public func stop() {
        guard !isStopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        close(socket)
    }

    /// Called on the listener's thread until `stop`.
    private func serve() {
        defer { finished.signal() }
        while !isStopping.load(ordering: .acquiring) {
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 500) > 0 else { continue }
            // accept4, which could set close-on-exec at once, needs _GNU_SOURCE, which Glibc's module lacks.
            let connection = accept(socket, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            answer(connection)
            close(connection)
        }
    }

    /// Reads the request head (at most 8 KiB, two seconds) and answers it.
    private func answer(_ connection: Int32) {
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        let deadline = ContinuousClock.now + .seconds(2)
        while head.count < 8192, !head.containsHeadEnd {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            var waiting = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, Int32(left.components.seconds * 1000 + 1)) > 0 else { return }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            head += chunk[0..<count]
        }
        let requestLine = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? parts[1].split(separator: "?").first.map(String.init) ?? "" : ""
        let response: [UInt8]
        if parts.first == "GET" || parts.first == "HEAD", path == "/metrics" {
            let body = render()
            response = Self.response("200 OK", type: "text/plain; version=0.0.4; charset=utf-8", body: body,
                                     includeBody: parts.first == "GET")
        } else if parts.first == "GET" || parts.first == "HEAD" {
            response = Self.response("404 Not Found", type: "text/plain; charset=utf-8", body: Array("only /metrics\n".utf8))
        } else {
            response = Self.response("405 Method Not Allowed", type: "text/plain; charset=utf-8", body: Array("GET only\n".utf8))
        }
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    static func response(_ status: String, type: String, body: [UInt8], includeBody: Bool = true) -> [UInt8] {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }

    public struct ListenError: Error, CustomStringConvertible, Sendable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}

extension [UInt8] {
    /// Whether the bytes hold the blank line that ends an HTTP request head.
    var containsHeadEnd: Bool {
        let end: [UInt8] = [13, 10, 13, 10]
        guard count >= 4 else { return false }
        for index in 0...(count - 4) where self[index] == 13 && Array(self[index..<index + 4]) == end { return true }
        return false
    }
}
