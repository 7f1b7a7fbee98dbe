import DBusBinding
import MediaJSON

/// What an MPRIS call or property write does in the node.
public enum MPRISAction: Sendable, Equatable {
    /// Performs a command of the command table with this payload, exactly as its MQTT request would.
    case command(String, JSONValue)
    /// Succeeds with no effect (a `Seek` by 0; `Raise` and `Quit`, which MPRIS says do nothing when
    /// `CanRaise` and `CanQuit` are false).
    case nothing
    /// `GetTracksMetadata` for these track ids.
    case tracksMetadata([String])
    /// Refused before reaching the command center (a value MPRIS does not define), with why.
    case refused(String)
}

/// One member of the MPRIS interfaces the node serves: its shape on D-Bus and what it is in the node. The
/// introspection data, the dispatch of calls and writes, and the properties' values all come from the
/// members listed in `MPRISMember.all`.
public struct MPRISMember: Sendable {
    public enum Kind: Sendable {
        case method(arguments: [Argument], results: [Argument], act: @Sendable ([DBusValue]) -> MPRISAction)
        case property(Property)
        case signal(arguments: [Argument])
    }

    public struct Argument: Sendable {
        let name: String
        let signature: String
        init(_ name: String, _ signature: String) { (self.name, self.signature) = (name, signature) }
    }

    /// How a property's changes reach clients (MPRIS's `EmitsChangedSignal` annotation).
    public enum ChangeSignal: String, Sendable {
        /// In `PropertiesChanged` with its new value.
        case emits = "true"
        /// Named in `PropertiesChanged` as invalidated: a client reads it again (TrackList's `Tracks`).
        case invalidates
        /// Never signalled: `Position` moves all the time (clients extrapolate it with `Rate` and `Seeked`).
        case never = "false"
    }

    public struct Property: Sendable {
        let signature: String
        let change: ChangeSignal
        /// The value now, from what the node publishes; `now` is seconds since the epoch, for `Position`.
        let read: @Sendable (_ inputs: MPRISInputs, _ now: Double) -> DBusValue
        /// What a write does; nil for a read-only property.
        let write: (@Sendable (DBusValue) -> MPRISAction)?
    }

    public let interface: String
    public let name: String
    public let kind: Kind
    /// The commands of the command table this member may perform, by name (for the test that walks the
    /// table: every command is reachable from MPRIS or said in `MPRISMember.notOnMPRIS` not to be).
    public let commands: [String]

    static func method(_ interface: String, _ name: String, _ arguments: [Argument] = [], results: [Argument] = [],
                       commands: [String] = [], act: @escaping @Sendable ([DBusValue]) -> MPRISAction) -> Self {
        Self(interface: interface, name: name, kind: .method(arguments: arguments, results: results, act: act), commands: commands)
    }

    static func property(_ interface: String, _ name: String, _ signature: String, change: ChangeSignal = .emits,
                         commands: [String] = [], write: (@Sendable (DBusValue) -> MPRISAction)? = nil,
                         read: @escaping @Sendable (MPRISInputs, Double) -> DBusValue) -> Self {
        Self(interface: interface, name: name,
             kind: .property(Property(signature: signature, change: change, read: read, write: write)), commands: commands)
    }

    static func signal(_ interface: String, _ name: String, _ arguments: [Argument]) -> Self {
        Self(interface: interface, name: name, kind: .signal(arguments: arguments), commands: [])
    }

    var property: Property? {
        if case let .property(property) = kind { return property }
        return nil
    }
}

// MARK: - Introspection

extension MPRISMember {
    /// The introspection XML of the interfaces `members` make up, in their order.
    static func introspection(of members: [MPRISMember]) -> String {
        var interfaces: [String] = []
        var byInterface: [String: [MPRISMember]] = [:]
        for member in members {
            if byInterface[member.interface] == nil { interfaces.append(member.interface) }
            byInterface[member.interface, default: []].append(member)
        }
        var xml = "<node>\n"
        for interface in interfaces {
            xml += "  <interface name=\"\(interface)\">\n"
            for member in byInterface[interface] ?? [] { xml += member.xml }
            xml += "  </interface>\n"
        }
        return xml + "</node>\n"
    }

    private var xml: String {
        func arguments(_ list: [Argument], direction: String?) -> String {
            list.map { argument in
                let way = direction.map { " direction=\"\($0)\"" } ?? ""
                return "      <arg name=\"\(argument.name)\" type=\"\(argument.signature)\"\(way)/>\n"
            }.joined()
        }
        switch kind {
        case let .method(inputs, outputs, _):
            return "    <method name=\"\(name)\">\n" + arguments(inputs, direction: "in")
                + arguments(outputs, direction: "out") + "    </method>\n"
        case let .property(property):
            let access = property.write == nil ? "read" : "readwrite"
            let annotation = property.change == .emits ? "" :
                "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.change.rawValue)\"/>\n"
            return "    <property name=\"\(name)\" type=\"\(property.signature)\" access=\"\(access)\""
                + (annotation.isEmpty ? "/>\n" : ">\n" + annotation + "    </property>\n")
        case let .signal(list):
            return "    <signal name=\"\(name)\">\n" + arguments(list, direction: nil) + "    </signal>\n"
        }
    }
}
