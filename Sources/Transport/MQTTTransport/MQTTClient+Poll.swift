import CMosquitto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Waiting for traffic with poll()

/// The client's own wake-up for its network thread: a non-blocking pipe that any thread writes a byte to
/// after queueing a packet, and that the thread watches beside its socket.
///
/// libmosquitto would open a pair of its own for each client, but only `mosquitto_loop` (which waits with
/// select()) reads it; clients are made without it (`medianode_mosquitto_new`).
struct WakeUpPipe: ~Copyable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(MQTTError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .library(call: "pipe", code: errno, message: String(cString: strerror(errno)))
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    /// None: for a client the event loop serves, which has no thread of its own to wake.
    init(unused: Void) {
        (readEnd, writeEnd) = (-1, -1)
    }

    /// A full pipe already holds a wake-up, so a failed write loses nothing.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &bytes, bytes.count) == bytes.count {}
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }
}

extension MQTTClient {
    /// Has what another thread queued written: by this client's network thread, or by the event loop's.
    func wakeNetwork() {
        guard let shard else { return wakeUpPipe.signal() }
        if !writeRequested.exchange(true, ordering: .relaxed) { shard.post(.write(self)) }
    }

    /// One turn of the network loop: waits up to `timeout` ms for the socket (or a wake-up), then reads,
    /// writes and keeps the connection alive. Returns libmosquitto's code, as `mosquitto_loop` does.
    ///
    /// `mosquitto_loop` waits with select(), which cannot watch a descriptor numbered 1024 or above and
    /// refuses to run for one: a process with a thousand connections (the fleet rig) has such descriptors.
    /// poll() has no such limit; the rest is what `mosquitto_loop` does after its select().
    func serveOnce(timeout: Int) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        var watched = [
            pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakeUpPipe.readEnd, events: Int16(POLLIN), revents: 0),
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
                // Emptied before writing: a packet queued after this still leaves a byte for the next wait.
                wakeUpPipe.drain()
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
