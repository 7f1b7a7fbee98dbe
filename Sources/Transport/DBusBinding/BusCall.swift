import CGIO
import Synchronization

/// Which message bus to be on.
public enum BusAddress: Sendable, Equatable, CustomStringConvertible {
    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    case session
    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket).
    case system
    /// A bus at a D-Bus address such as `unix:path=/run/bus`.
    case address(String)

    public var description: String {
        switch self {
        case .session: "the session bus"
        case .system: "the system bus"
        case let .address(address): "the bus at \(address)"
        }
    }
}

/// What an exported object answers with: its methods (answered now or later) and its properties (read at
/// once, from what the object already knows).
public protocol BusObjectHandler: Sendable {
    /// A method call, `org.freedesktop.DBus.Properties.Set` included (so a write can take its time).
    /// Called on the bus loop's thread: it must return at once and answer through `call.reply` later, from
    /// any thread. GDBus has already checked the arguments against the introspection data.
    func handle(_ call: BusMethodCall)
    /// A property's value now; nil answers the caller with an error. Called on the bus loop's thread, for
    /// `Get` and `GetAll`: it must not wait.
    func property(interface: String, name: String) -> DBusValue?
}

/// One incoming method call.
public struct BusMethodCall: Sendable {
    public let interface: String
    public let member: String
    /// The call's arguments, in order.
    public let arguments: [DBusValue]
    /// The caller's unique bus name.
    public let sender: String
    public let reply: BusReply
}

/// The one answer a method call gets. Answering twice is ignored; a call never answered is answered with
/// an error when this is released, so a caller never waits for its timeout because of a lost reply.
///
/// Threading: `succeed` and `fail` may be called from any thread; the answer is sent from the loop's.
public final class BusReply: @unchecked Sendable {
    /// The GDBusMethodInvocation, owned until the answer hands it back to GDBus.
    private let invocation: OpaquePointer
    private let loop: BusLoop
    private let isAnswered = Atomic(false)

    init(invocation: OpaquePointer, loop: BusLoop) {
        self.invocation = invocation
        self.loop = loop
    }

    deinit {
        if !isAnswered.load(ordering: .acquiring) {
            send(error: "org.freedesktop.DBus.Error.Failed", message: "the call was dropped without an answer")
        }
    }

    /// Answers with `results` (none for a method without results).
    public func succeed(_ results: [DBusValue] = []) {
        guard !isAnswered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let invocation = SendablePointer(invocation)
        loop.perform {
            g_dbus_method_invocation_return_value(invocation.pointer, DBusValue.tuple(results).makeVariant())
        }
    }

    /// Answers with the D-Bus error `name` (e.g. `org.mpris.MediaPlayer2.MediaNode.CommandFailed`).
    public func fail(name: String, message: String) {
        guard !isAnswered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        send(error: name, message: message)
    }

    private func send(error name: String, message: String) {
        let invocation = SendablePointer(invocation)
        loop.perform {
            name.withCString { name in
                message.withCString { g_dbus_method_invocation_return_dbus_error(invocation.pointer, name, $0) }
            }
        }
    }
}

/// A C pointer carried to the loop's thread, where alone it is used.
struct SendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
