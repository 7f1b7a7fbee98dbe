import CGIO
import Logging

/// What became of the presence on the bus, in the order it happened.
public enum BusPresenceEvent: Sendable, Equatable {
    /// On the bus and owning the name; `uniqueName` is the connection's own (`:1.42`).
    case registered(uniqueName: String)
    /// On the bus, but another connection owns the name: it becomes ours once that one lets it go.
    case nameTaken
    /// Off the bus (it cannot be reached, or went away), with why; it is tried again every `retryInterval`.
    case unreachable(String)
}

/// One object exported on a message bus under a well-known name, and kept there: when the bus goes away
/// (a crash, a restart), the object is registered again as soon as the bus answers, without the rest of
/// the process noticing more than the log line.
///
/// Threading: the connection, its registrations and the name are made, used and released on `loop`'s
/// thread only (the properties marked "loop thread"). `start`, `emit` and `stop` may be called from any
/// thread; they post their work to the loop. The handler is called on the loop's thread.
public final class BusPresence: @unchecked Sendable {
    public let address: BusAddress
    public let name: String
    public let path: String
    public let events: AsyncStream<BusPresenceEvent>
    let loop: BusLoop
    let handler: any BusObjectHandler
    private let logger: Logger
    private let retryInterval: Duration
    private let eventContinuation: AsyncStream<BusPresenceEvent>.Continuation
    /// The parsed introspection data, read-only once made; freed on release.
    private let nodeInfo: UnsafeMutablePointer<GDBusNodeInfo>
    /// The methods GDBus calls for each registered interface; no `set_property`, so a `Set` arrives as a call.
    private let vtable: UnsafeMutablePointer<GDBusInterfaceVTable>

    // Loop thread only.
    private var connection: OpaquePointer?
    private var registrations: [guint] = []
    private var ownerID: guint = 0
    private var closedHandler: gulong = 0
    private var pending: UnsafeMutablePointer<GCancellable>?
    private var isStopped = false
    /// Why the bus was last unreachable, so one outage is logged once, not every second.
    private var outage: String?

    /// - Parameter introspection: the D-Bus introspection XML of the object's interfaces.
    public init(address: BusAddress, name: String, path: String, introspection: String, handler: any BusObjectHandler,
                loop: BusLoop, retryInterval: Duration = .seconds(1), logger: Logger) throws(BusError) {
        var error: UnsafeMutablePointer<GError>?
        guard let info = introspection.withCString({ g_dbus_node_info_new_for_xml($0, &error) }) else {
            throw BusError(consuming: error, doing: "reading the introspection data")
        }
        (self.address, self.name, self.path, self.handler, self.loop) = (address, name, path, handler, loop)
        (self.retryInterval, self.logger, nodeInfo) = (retryInterval, logger, info)
        vtable = .allocate(capacity: 1)
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, sender, _, interface, member, parameters, invocation, data in
            let presence = Unmanaged<BusPresence>.fromOpaque(data!).takeUnretainedValue()
            var arguments: [DBusValue] = []
            if let parameters, case let .tuple(members) = DBusValue(reading: parameters) { arguments = members }
            presence.handler.handle(BusMethodCall(
                interface: String(cString: interface!), member: String(cString: member!), arguments: arguments,
                sender: sender.map { String(cString: $0) } ?? "", reply: BusReply(invocation: invocation!, loop: presence.loop)))
        }
        vtable.pointee.get_property = { _, _, _, interface, property, error, data in
            let presence = Unmanaged<BusPresence>.fromOpaque(data!).takeUnretainedValue()
            let name = String(cString: property!)
            guard let value = presence.handler.property(interface: String(cString: interface!), name: name) else {
                g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_FAILED.rawValue), "\(name) has no value now")
                return nil
            }
            return value.makeVariant()
        }
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    deinit {
        g_dbus_node_info_unref(nodeInfo)
        vtable.deallocate()
    }

    /// Connects, registers the object and asks for the name; keeps trying until `stop`.
    public func start() {
        loop.perform { [self] in connect() }
    }

    /// Emits a signal from the object; dropped while off the bus (a client that comes back reads the
    /// properties anew).
    public func emit(interface: String, signal: String, arguments: [DBusValue]) {
        loop.perform { [self] in
            guard let connection else { return }
            var error: UnsafeMutablePointer<GError>?
            let sent = g_dbus_connection_emit_signal(
                connection, nil, path, interface, signal, DBusValue.tuple(arguments).makeVariant(), &error)
            if sent == 0 { logger.debug("\(signal) not sent: \(BusError(consuming: error, doing: "emitting").message)") }
        }
    }

    /// Leaves the bus: the name is released and the connection closed. Returns once done.
    public func stop() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.perform { [self] in
                isStopped = true
                if let pending { g_cancellable_cancel(pending) }
                if let connection {
                    tearDown()
                    g_dbus_connection_close_sync(connection, nil, nil)
                    g_object_unref(UnsafeMutableRawPointer(connection))
                }
                done.resume()
            }
        }
        eventContinuation.finish()
    }

    // MARK: - On the loop's thread

    private func connect() {
        guard !isStopped, connection == nil, pending == nil else { return }
        let target: String
        switch address {
        case let .address(given): target = given
        case .session, .system:
            var error: UnsafeMutablePointer<GError>?
            let type = address == .system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION
            guard let found = g_dbus_address_get_for_bus_sync(type, nil, &error) else {
                return unreachable(BusError(consuming: error, doing: "finding \(address)").message)
            }
            target = String(cString: found)
            g_free(found)
        }
        let cancellable = g_cancellable_new()
        pending = cancellable
        let flags = GDBusConnectionFlags(
            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        // Asynchronous: a bus that accepts the socket and never answers must not hold the loop (or `stop`).
        g_dbus_connection_new_for_address(target, flags, nil, cancellable, { _, result, data in
            Unmanaged<BusPresence>.fromOpaque(data!).takeRetainedValue().finishConnecting(result!)
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func finishConnecting(_ result: OpaquePointer) {
        if let pending { g_object_unref(UnsafeMutableRawPointer(pending)) }
        pending = nil
        var error: UnsafeMutablePointer<GError>?
        let made = g_dbus_connection_new_for_address_finish(result, &error)
        guard !isStopped else {
            if let made { g_object_unref(UnsafeMutableRawPointer(made)) }
            g_clear_error(&error)
            return
        }
        guard let made else { return unreachable(BusError(consuming: error, doing: "connecting").message) }
        connection = made
        closedHandler = medianode_connect_closed(made, { _, _, _, data in
            Unmanaged<BusPresence>.fromOpaque(data!).takeUnretainedValue().closed()
        }, Unmanaged.passUnretained(self).toOpaque())
        var index = 0
        while let interface = nodeInfo.pointee.interfaces[index] {
            index += 1
            var error: UnsafeMutablePointer<GError>?
            let id = g_dbus_connection_register_object(
                made, path, interface, vtable, Unmanaged.passUnretained(self).toOpaque(), nil, &error)
            if id == 0 { logger.error("MPRIS: \(BusError(consuming: error, doing: "registering \(path)").message)") }
            registrations.append(id)
        }
        ownerID = g_bus_own_name_on_connection(made, name, G_BUS_NAME_OWNER_FLAGS_NONE, { connection, _, data in
            Unmanaged<BusPresence>.fromOpaque(data!).takeUnretainedValue().acquired(connection)
        }, { connection, _, data in
            Unmanaged<BusPresence>.fromOpaque(data!).takeUnretainedValue().nameLost(connection)
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    private func acquired(_ connection: OpaquePointer?) {
        let unique = connection.flatMap { g_dbus_connection_get_unique_name($0) }.map { String(cString: $0) } ?? ""
        logger.info("on \(address) as \(name)\(outage == nil ? "" : ", again")")
        outage = nil
        eventContinuation.yield(.registered(uniqueName: unique))
    }

    /// The name is someone else's (or the connection closed, which `closed` handles).
    private func nameLost(_ connection: OpaquePointer?) {
        guard connection != nil, self.connection != nil, !isStopped else { return }
        logger.warning("\(name) is owned by another connection on \(address); it is ours once that one leaves")
        eventContinuation.yield(.nameTaken)
    }

    /// The bus went away (a crash or a restart): what was registered is gone with it.
    private func closed() {
        guard let connection else { return }
        tearDown()
        g_object_unref(UnsafeMutableRawPointer(connection))
        unreachable("the connection closed")
    }

    /// Forgets the registrations and the name of the current connection; the caller releases it.
    private func tearDown() {
        guard let connection else { return }
        if ownerID != 0 { g_bus_unown_name(ownerID) }
        for id in registrations where id != 0 { g_dbus_connection_unregister_object(connection, id) }
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), closedHandler) }
        (ownerID, registrations, closedHandler) = (0, [], 0)
        self.connection = nil
    }

    private func unreachable(_ reason: String) {
        guard !isStopped else { return }
        if outage == nil {
            logger.warning("off \(address) (\(reason)); the node runs on without it and tries again every \(retryInterval)")
        }
        outage = reason
        eventContinuation.yield(.unreachable(reason))
        loop.after(retryInterval) { [self] in connect() }
    }
}

/// A GError as a Swift error: its message, and what was being done.
public struct BusError: Error, Sendable, CustomStringConvertible {
    public let message: String

    /// Takes the error's message and frees it.
    init(consuming error: UnsafeMutablePointer<GError>?, doing what: String) {
        if let error {
            message = "\(what): \(String(cString: error.pointee.message))"
            g_error_free(error)
        } else {
            message = "\(what) failed"
        }
    }

    public var description: String { message }
}
