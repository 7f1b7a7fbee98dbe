import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks whether a broker accepts connections, without an MQTT session: a session with the node's own
/// client id would take over the one on the broker it is connected to when the two are a cluster.
enum BrokerProbe {
    /// Whether a TCP connection to the broker's host and port opens within `timeout`. Blocks: run it off
    /// the network thread.
    static func answers(_ broker: BrokerURL, timeout: Duration = .seconds(2)) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(broker.host, String(broker.port), &hints, &found) == 0, let found else { return false }
        defer { freeaddrinfo(found) }
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var entry: UnsafeMutablePointer<addrinfo>? = found
        while let address = entry {
            if connects(address.pointee, milliseconds: milliseconds) { return true }
            entry = address.pointee.ai_next
        }
        return false
    }

    private static func connects(_ address: addrinfo, milliseconds: Int32) -> Bool {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), address.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, milliseconds) == 1 else { return false }
        var problem: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &length) == 0 else { return false }
        return problem == 0
    }
}
