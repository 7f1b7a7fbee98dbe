import CMosquitto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Leaving a broker cleanly, in bounded time

extension MQTTClient {
    /// How long a shutdown waits for the broker to acknowledge what was published before the DISCONNECT
    /// (the owner's last retained state and its `offline`): a broker that is gone, frozen or slower gets the
    /// DISCONNECT then anyway.
    public static let acknowledgementLimit = Duration.milliseconds(1000)
    /// How long the DISCONNECT may take to be written and the broker to close its end after it.
    public static let closeLimit = Duration.milliseconds(500)

    /// One connection's goodbye, run by the network thread: at shutdown it waits (up to
    /// `acknowledgementLimit`) until every QoS 1 publish is acknowledged, so what was published last goes
    /// out before the DISCONNECT; at fail-back it says goodbye at once.
    ///
    /// The end is a TCP close in order: libmosquitto closes its descriptor as soon as the DISCONNECT is
    /// written, and Linux answers the close of a socket with unread data with a reset; a broker that still
    /// writes to the connection (an acknowledgement, a message on a subscription) before it has read the
    /// DISCONNECT then counts the connection as lost and sends the will. So a duplicate of the socket is
    /// kept: once the DISCONNECT is out it sends the FIN and reads (discarding) until the broker closes its
    /// end, up to `closeLimit`.
    struct Goodbye {
        private let acknowledgementDeadline: ContinuousClock.Instant
        private let waitsForAcknowledgements: Bool
        private var closeDeadline: ContinuousClock.Instant?
        /// The duplicate descriptor, from the DISCONNECT on.
        private var socket: Int32 = -1

        init(waitingForAcknowledgements: Bool) {
            acknowledgementDeadline = waitingForAcknowledgements ? .now + MQTTClient.acknowledgementLimit : .now
            waitsForAcknowledgements = waitingForAcknowledgements
        }

        var isDisconnectSent: Bool { closeDeadline != nil }

        /// Whether the goodbye has run out of time: the connection is then dropped as it stands.
        var isOverdue: Bool { closeDeadline.map { ContinuousClock.now >= $0 } ?? false }

        /// Sends the DISCONNECT once nothing is left unacknowledged or the wait for it is over.
        mutating func advance(_ client: MQTTClient) {
            guard closeDeadline == nil else { return }
            let settled = !waitsForAcknowledgements || client.state.withLock { $0.unacknowledged.isEmpty }
            guard settled || ContinuousClock.now >= acknowledgementDeadline else { return }
            if !settled { client.logger.notice("the broker did not acknowledge the last publishes in time; disconnecting anyway") }
            closeDeadline = .now + MQTTClient.closeLimit
            socket = client.disconnectKeepingSocket()
        }

        /// Ends the connection once libmosquitto let go of it (or the goodbye ran out of time): FIN, then
        /// what the broker still sends is read until it closes its end.
        func finish() {
            guard socket >= 0 else { return }
            defer { close(socket) }
            Glibc.shutdown(socket, Int32(SHUT_WR))
            let deadline = closeDeadline ?? .now
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < deadline {
                let left = deadline - ContinuousClock.now
                var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                guard poll(&waiting, 1, milliseconds) == 1 else { return }
                // 0: the broker closed its end, the goodbye is complete; below 0: the connection is gone.
                guard read(socket, &buffer, buffer.count) > 0 else { return }
            }
        }
    }

    /// Reads what the broker sent so far, queues the DISCONNECT and writes it; returns a duplicate of the
    /// socket for `Goodbye.finish` (-1 if there was none).
    func disconnectKeepingSocket() -> Int32 {
        readWhatIsWaiting()
        let current = mosquitto_socket(handle)
        let kept = current >= 0 ? dup(current) : -1
        if kept >= 0 { _ = fcntl(kept, F_SETFD, FD_CLOEXEC) }
        mosquitto_disconnect_v5(handle, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), nil)
        // Written now, right after the reads; libmosquitto closes its descriptor once it is out.
        _ = mosquitto_loop_write(handle, 1)
        return kept
    }

    /// Reads every packet the broker has sent so far, so little is left unread when the DISCONNECT goes.
    private func readWhatIsWaiting() {
        for _ in 0..<1000 {
            var waiting = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLIN), revents: 0)
            guard waiting.fd >= 0, poll(&waiting, 1, 0) == 1, waiting.revents & Int16(POLLIN) != 0,
                  mosquitto_loop_read(handle, 1) == Int32(MOSQ_ERR_SUCCESS.rawValue)
            else { return }
        }
    }
}
