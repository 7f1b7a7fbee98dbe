import CMosquitto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Waiting for traffic with poll()

extension MQTTClient {
    /// What the network thread waits on during one connection: the socket and libmosquitto's wake-up pipe.
    struct Wakeable {
        /// The read end of the socket pair libmosquitto writes a byte to on every publish or subscribe, so
        /// a loop waiting for traffic sends it at once; -1 when it cannot be found (see `find`).
        var pipe: Int32

        /// libmosquitto makes the pair on every connect and keeps its read end in a private field: the
        /// handle starts with the socket, then the pair's read and write ends (so in 2.0.11, whose
        /// `mosquitto_loop` reads them at those offsets). The guess is used only when it checks out: the
        /// first field is the socket the library reports, and the two next are distinct Unix-domain
        /// sockets. Otherwise -1, and the caller falls back to libmosquitto's own loop.
        static func find(in handle: OpaquePointer) -> Wakeable {
            let socket = mosquitto_socket(handle)
            let fields = UnsafeRawPointer(handle)
            let first = fields.load(as: Int32.self)
            let read = fields.load(fromByteOffset: 4, as: Int32.self)
            let write = fields.load(fromByteOffset: 8, as: Int32.self)
            guard socket >= 0, first == socket, read >= 0, write >= 0, read != write, read != socket,
                  isUnixSocket(read), isUnixSocket(write)
            else { return Wakeable(pipe: -1) }
            return Wakeable(pipe: read)
        }

        private static func isUnixSocket(_ descriptor: Int32) -> Bool {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            return named == 0 && address.ss_family == sa_family_t(AF_UNIX)
        }
    }

    /// One turn of the network loop: waits up to `timeout` ms for the socket (or a wake-up), then reads,
    /// writes and keeps the connection alive. Returns libmosquitto's code, as `mosquitto_loop` does.
    ///
    /// `mosquitto_loop` waits with select(), which cannot watch a descriptor numbered 1024 or above and
    /// refuses to run for one: a process with a thousand connections (the fleet rig) has such descriptors.
    /// poll() has no such limit; the rest is what `mosquitto_loop` does after its select().
    func serveOnce(timeout: Int, wakeable: Wakeable) -> Int32 {
        guard wakeable.pipe >= 0 else { return mosquitto_loop(handle, Int32(timeout), 1) }
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        var watched = [
            pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakeable.pipe, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&watched, 2, Int32(timeout))
        if ready < 0 {
            return errno == EINTR ? Int32(MOSQ_ERR_SUCCESS.rawValue) : Int32(MOSQ_ERR_ERRNO.rawValue)
        }
        if ready > 0 {
            // A closed or failed socket reads as an error, which ends the connection as select() would.
            if watched[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                let code = mosquitto_loop_read(handle, 1)
                if code != Int32(MOSQ_ERR_SUCCESS.rawValue) || mosquitto_socket(handle) < 0 { return code }
            }
            var write = watched[0].revents & Int16(POLLOUT) != 0
            if watched[1].revents & Int16(POLLIN) != 0 {
                // One byte per publish: empty the pipe, and write what was queued since the wait began.
                var bytes = [UInt8](repeating: 0, count: 256)
                while recv(wakeable.pipe, &bytes, bytes.count, Int32(MSG_DONTWAIT)) == bytes.count {}
                write = true
            }
            if write {
                let code = mosquitto_loop_write(handle, 1)
                if code != Int32(MOSQ_ERR_SUCCESS.rawValue) || mosquitto_socket(handle) < 0 { return code }
            }
        }
        return mosquitto_loop_misc(handle)
    }
}
