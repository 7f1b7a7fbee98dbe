import CGIO
@testable import DBusBinding
import Foundation
import Logging
import MediaNodeTesting
import Synchronization
import Testing

/// The D-Bus binding on its own, against a private dbus-daemon: values, calls, properties, signals, and an
/// object that outlives its bus.
@Suite("D-Bus binding")
struct DBusBindingTests {
    static let introspection = """
        <node>
          <interface name="org.example.Echo">
            <method name="Echo"><arg name="value" type="v" direction="in"/><arg name="same" type="v" direction="out"/></method>
            <method name="Drop"/>
            <method name="Fail"><arg name="message" type="s" direction="in"/></method>
            <property name="Level" type="d" access="readwrite"/>
            <signal name="Changed"><arg name="level" type="d"/></signal>
          </interface>
        </node>
        """

    /// Echoes values, drops a reply, fails on request, and takes writes of `Level` as calls.
    final class EchoObject: BusObjectHandler {
        let level = Mutex(0.5)
        func handle(_ call: BusMethodCall) {
            switch (call.interface, call.member) {
            case ("org.example.Echo", "Echo"): call.reply.succeed(call.arguments)
            case ("org.example.Echo", "Fail"): call.reply.fail(name: "org.example.Error.Asked", message: call.arguments.first?.stringValue ?? "")
            case ("org.freedesktop.DBus.Properties", "Set"):
                if case let .variant(.double(value)) = call.arguments[2] { level.withLock { $0 = value } }
                call.reply.succeed()
            default: break  // "Drop": the reply is released unanswered
            }
        }
        func property(interface: String, name: String) -> DBusValue? { name == "Level" ? .double(level.withLock { $0 }) : nil }
    }

    @Test("values of every type round-trip through GVariant")
    func valuesRoundTrip() {
        let values: [DBusValue] = [
            .bool(true), .byte(255), .int16(-3), .uint16(3), .int32(.min), .uint32(.max), .int64(.min), .uint64(.max),
            .double(-0.25), .string("Grüße ♪"), .objectPath("/a/b_1"), .signature("a{sv}"), .variant(.int32(7)),
            .array(elementSignature: "s", []), .strings(["a", "b"]), .vardict(["k": .double(1), "l": .strings(["x"])]),
            .tuple([.string("t"), .array(elementSignature: "o", [.objectPath("/x")])]),
        ]
        for value in values {
            let variant = value.makeVariant()
            let read = DBusValue(reading: variant)
            g_variant_unref(g_variant_ref_sink(variant))
            #expect(read == value, "\(value.signature)")
        }
        #expect(DBusValue.objectPath("not a path").makeVariant() != nil, "an invalid path becomes / rather than a null")
    }

    @Test("calls are answered, a dropped reply becomes an error, properties are read and written, signals arrive")
    func callsPropertiesSignals() async throws {
        let daemon = try await DBusDaemon()
        defer { daemon.stop() }
        let loop = BusLoop(name: "test.binding")
        let object = EchoObject()
        let presence = try BusPresence(address: .address(daemon.address), name: "org.example.EchoService", path: "/echo",
                                       introspection: Self.introspection, handler: object, loop: loop, logger: Logger(label: "test"))
        presence.start()
        let clientLoop = BusLoop(name: "test.binding.client")
        let client = try await BusClient(address: daemon.address, loop: clientLoop)
        try await Self.waitForName(client, "org.example.EchoService")
        func call(_ member: String, _ arguments: [DBusValue], interface: String = "org.example.Echo") async throws -> [DBusValue] {
            try await client.call("org.example.EchoService", path: "/echo", interface: interface, member: member, arguments: arguments)
        }
        #expect(try await call("Echo", [.variant(.vardict(["a": .int64(1)]))]) == [.variant(.vardict(["a": .int64(1)]))])
        await #expect { try await call("Fail", [.string("as asked")]) } throws: { error in
            (error as? BusCallError)?.name == "org.example.Error.Asked" && (error as? BusCallError)?.message == "as asked"
        }
        await #expect { try await call("Drop", []) } throws: { error in
            (error as? BusCallError)?.name == "org.freedesktop.DBus.Error.Failed"
        }
        await #expect { try await call("Echo", [.string("not a variant")]) } throws: { error in
            (error as? BusCallError)?.name == "org.freedesktop.DBus.Error.InvalidArgs"
        }
        let properties = "org.freedesktop.DBus.Properties"
        #expect(try await call("Get", [.string("org.example.Echo"), .string("Level")], interface: properties) == [.variant(.double(0.5))])
        _ = try await call("Set", [.string("org.example.Echo"), .string("Level"), .variant(.double(0.75))], interface: properties)
        #expect(object.level.withLock { $0 } == 0.75)

        let signals = client.signals(from: nil, interface: "org.example.Echo", member: "Changed")
        try await Task.sleep(for: .milliseconds(200))  // the subscription reaches the daemon
        presence.emit(interface: "org.example.Echo", signal: "Changed", arguments: [.double(0.75)])
        var iterator = signals.makeAsyncIterator()
        let signal = await iterator.next()
        #expect(signal?.arguments == [.double(0.75)] && signal?.path == "/echo")

        await client.close()
        await presence.stop()
        await clientLoop.stop()
        await loop.stop()
    }

    static func waitForName(_ client: BusClient, _ name: String) async throws {
        for _ in 0..<200 {
            let owned = try await client.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                              member: "NameHasOwner", arguments: [.string(name)])
            if owned == [.bool(true)] { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ToolFailed("\(name) never appeared")
    }
}
