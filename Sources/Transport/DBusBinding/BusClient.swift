import CGIO
import Synchronization

/// A plain client connection to a message bus: method calls and signal subscriptions, for the tests'
/// generator of hostile calls and the benchmark's timing of signals.
///
/// Threading: the connection is made and its signals are delivered on `loop`'s thread; `call` may be
/// made from any task and awaits the reply without holding a thread.
public final class BusClient: @unchecked Sendable {
    let loop: BusLoop
    /// The GDBusConnection, made once in `init` and released in `close`; GDBus locks its own state.
    private let connection: OpaquePointer
    private let subscriptions = Mutex<[guint]>([])
    private let isClosed = Atomic(false)

    /// Connects to the bus at `address` (a D-Bus address such as `unix:path=...`) and says hello.
    public init(address: String, loop: BusLoop) async throws(BusError) {
        self.loop = loop
        let made: Result<SendablePointer, BusError> = await withCheckedContinuation { continuation in
            loop.perform {
                var error: UnsafeMutablePointer<GError>?
                let flags = GDBusConnectionFlags(
                    G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
                if let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) {
                    continuation.resume(returning: .success(SendablePointer(connection)))
                } else {
                    continuation.resume(returning: .failure(BusError(consuming: error, doing: "connecting to \(address)")))
                }
            }
        }
        connection = try made.get().pointer
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// The connection's unique name (`:1.42`).
    public var uniqueName: String { g_dbus_connection_get_unique_name(connection).map { String(cString: $0) } ?? "" }

    /// Calls a method and returns its results; a D-Bus error throws `BusCallError` with the error's name.
    public func call(_ destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
                     timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        let connection = SendablePointer(connection)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[DBusValue], any Error>) in
            let waiting = CallContinuation(continuation)
            loop.perform {
                g_dbus_connection_call(
                    connection.pointer, destination, path, interface, member, DBusValue.tuple(arguments).makeVariant(), nil,
                    G_DBUS_CALL_FLAGS_NONE, milliseconds, nil, { source, result, data in
                        let waiting = Unmanaged<CallContinuation>.fromOpaque(data!).takeRetainedValue()
                        var error: UnsafeMutablePointer<GError>?
                        guard let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) else {
                            return waiting.continuation.resume(throwing: BusCallError(consuming: error))
                        }
                        defer { g_variant_unref(reply) }
                        guard case let .tuple(results) = DBusValue(reading: reply) else {
                            return waiting.continuation.resume(returning: [])
                        }
                        waiting.continuation.resume(returning: results)
                    }, Unmanaged.passRetained(waiting).toOpaque())
            }
        }
    }

    /// Every signal `sender` sends (any interface and member when nil), with when it arrived here.
    public func signals(from sender: String?, interface: String? = nil, member: String? = nil) -> AsyncStream<BusSignal> {
        let (stream, continuation) = AsyncStream.makeStream(of: BusSignal.self, bufferingPolicy: .unbounded)
        let sink = SignalSink(continuation)
        let connection = SendablePointer(connection)
        loop.perform { [self] in
            let id = g_dbus_connection_signal_subscribe(
                connection.pointer, sender, interface, member, nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, path, interface, member, parameters, data in
                    let arrived = ContinuousClock.now
                    let sink = Unmanaged<SignalSink>.fromOpaque(data!).takeUnretainedValue()
                    var arguments: [DBusValue] = []
                    if let parameters, case let .tuple(members) = DBusValue(reading: parameters) { arguments = members }
                    sink.continuation.yield(BusSignal(
                        path: String(cString: path!), interface: String(cString: interface!), member: String(cString: member!),
                        arguments: arguments, arrivedAt: arrived))
                }, Unmanaged.passRetained(sink).toOpaque(), { data in Unmanaged<SignalSink>.fromOpaque(data!).release() })
            subscriptions.withLock { $0.append(id) }
        }
        return stream
    }

    /// Unsubscribes and closes the connection.
    public func close() async {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let connection = SendablePointer(connection)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.perform { [self] in
                for id in subscriptions.withLock({ $0 }) { g_dbus_connection_signal_unsubscribe(connection.pointer, id) }
                g_dbus_connection_close_sync(connection.pointer, nil, nil)
                done.resume()
            }
        }
    }
}

/// A signal as a client received it.
public struct BusSignal: Sendable {
    public let path: String
    public let interface: String
    public let member: String
    public let arguments: [DBusValue]
    public let arrivedAt: ContinuousClock.Instant
}

/// A method call answered with a D-Bus error.
public struct BusCallError: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name (`org.freedesktop.DBus.Error.InvalidArgs`), when the error was one.
    public let name: String?
    public let message: String

    init(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            (name, message) = (nil, "failed")
            return
        }
        name = g_dbus_error_get_remote_error(error).map { remote in
            defer { g_free(remote) }
            return String(cString: remote)
        }
        if name != nil { g_dbus_error_strip_remote_error(error) }
        message = String(cString: error.pointee.message)
        g_error_free(error)
    }

    public var description: String { "\(name ?? "error"): \(message)" }
}

private final class CallContinuation: Sendable {
    let continuation: CheckedContinuation<[DBusValue], any Error>
    init(_ continuation: CheckedContinuation<[DBusValue], any Error>) { self.continuation = continuation }
}

private final class SignalSink: Sendable {
    let continuation: AsyncStream<BusSignal>.Continuation
    init(_ continuation: AsyncStream<BusSignal>.Continuation) { self.continuation = continuation }
}
