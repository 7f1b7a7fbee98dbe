import CGIO

/// A D-Bus value as plain Swift, so nothing above the binding touches a `GVariant`.
///
/// Covers the types the node exchanges: the basic types, variants, arrays (with their element signature,
/// so an empty one still has a type), dictionary entries and tuples (a call's arguments and results).
public indirect enum DBusValue: Sendable, Equatable {
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case variant(DBusValue)
    case array(elementSignature: String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case tuple([DBusValue])
    /// A type the binding does not convert (a file handle, a maybe); its signature, for error messages.
    case unsupported(String)

    /// `a{sv}`: the dictionary MPRIS metadata and PropertiesChanged use, in key order.
    public static func vardict(_ members: [String: DBusValue]) -> DBusValue {
        .array(elementSignature: "{sv}", members.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    /// `as`.
    public static func strings(_ texts: [String]) -> DBusValue {
        .array(elementSignature: "s", texts.map(DBusValue.string))
    }

    /// The D-Bus type signature.
    public var signature: String {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case let .array(element, _): "a" + element
        case let .dictEntry(key, value): "{" + key.signature + value.signature + "}"
        case let .tuple(members): "(" + members.map(\.signature).joined() + ")"
        case let .unsupported(signature): signature
        }
    }

    // MARK: - Reading

    /// The members of a `a{sv}`, variants unwrapped; nil for anything else.
    public var vardictMembers: [String: DBusValue]? {
        guard case let .array("{sv}", entries) = self else { return nil }
        var members: [String: DBusValue] = [:]
        for case let .dictEntry(.string(key), .variant(value)) in entries { members[key] = value }
        return members
    }

    public var stringValue: String? {
        switch self {
        case let .string(text), let .objectPath(text), let .signature(text): text
        default: nil
        }
    }

    /// Any integer or double as a Double (what a JSON payload carries).
    public var numberValue: Double? {
        switch self {
        case let .byte(value): Double(value)
        case let .int16(value): Double(value)
        case let .uint16(value): Double(value)
        case let .int32(value): Double(value)
        case let .uint32(value): Double(value)
        case let .int64(value): Double(value)
        case let .uint64(value): Double(value)
        case let .double(value): value
        default: nil
        }
    }
}

// MARK: - GVariant

extension DBusValue {
    /// A new floating `GVariant`; whoever it is handed to (a reply, a signal, a container) takes it.
    /// Object paths and signatures that GLib would reject become `/` and the empty signature instead of
    /// a critical warning and a null.
    func makeVariant() -> OpaquePointer {
        switch self {
        case let .bool(value): return g_variant_new_boolean(value ? 1 : 0)
        case let .byte(value): return g_variant_new_byte(value)
        case let .int16(value): return g_variant_new_int16(value)
        case let .uint16(value): return g_variant_new_uint16(value)
        case let .int32(value): return g_variant_new_int32(value)
        case let .uint32(value): return g_variant_new_uint32(value)
        case let .int64(value): return g_variant_new_int64(gint64(value))
        case let .uint64(value): return g_variant_new_uint64(guint64(value))
        case let .double(value): return g_variant_new_double(value)
        case let .string(text): return text.withCString { g_variant_new_string($0) }
        case let .objectPath(path):
            let valid = path.withCString { g_variant_is_object_path($0) } != 0 ? path : "/"
            return valid.withCString { g_variant_new_object_path($0) }
        case let .signature(text):
            let valid = text.withCString { g_variant_is_signature($0) } != 0 ? text : ""
            return valid.withCString { g_variant_new_signature($0) }
        case let .variant(inner): return g_variant_new_variant(inner.makeVariant())
        case let .array(element, members):
            var children: [OpaquePointer?] = members.map { $0.makeVariant() }
            return element.withCString { type in
                children.withUnsafeMutableBufferPointer {
                    g_variant_new_array(medianode_variant_type(type), $0.baseAddress, gsize($0.count))
                }
            }
        case let .dictEntry(key, value): return g_variant_new_dict_entry(key.makeVariant(), value.makeVariant())
        case let .tuple(members):
            var children: [OpaquePointer?] = members.map { $0.makeVariant() }
            return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .unsupported: return g_variant_new_tuple(nil, 0)
        }
    }

    /// Reads a `GVariant` without taking a reference to it.
    init(reading variant: OpaquePointer) {
        let signature = String(cString: g_variant_get_type_string(variant))
        switch signature.first {
        case "b": self = .bool(g_variant_get_boolean(variant) != 0)
        case "y": self = .byte(g_variant_get_byte(variant))
        case "n": self = .int16(g_variant_get_int16(variant))
        case "q": self = .uint16(g_variant_get_uint16(variant))
        case "i": self = .int32(g_variant_get_int32(variant))
        case "u": self = .uint32(g_variant_get_uint32(variant))
        case "x": self = .int64(Int64(g_variant_get_int64(variant)))
        case "t": self = .uint64(UInt64(g_variant_get_uint64(variant)))
        case "d": self = .double(g_variant_get_double(variant))
        case "s": self = .string(String(cString: g_variant_get_string(variant, nil)))
        case "o": self = .objectPath(String(cString: g_variant_get_string(variant, nil)))
        case "g": self = .signature(String(cString: g_variant_get_string(variant, nil)))
        case "v":
            let inner = g_variant_get_variant(variant)!
            defer { g_variant_unref(inner) }
            self = .variant(DBusValue(reading: inner))
        case "a": self = .array(elementSignature: String(signature.dropFirst()), Self.children(of: variant))
        case "{":
            let members = Self.children(of: variant)
            self = members.count == 2 ? .dictEntry(members[0], members[1]) : .unsupported(signature)
        case "(": self = .tuple(Self.children(of: variant))
        default: self = .unsupported(signature)
        }
    }

    private static func children(of container: OpaquePointer) -> [DBusValue] {
        (0..<g_variant_n_children(container)).map { index in
            let child = g_variant_get_child_value(container, index)!
            defer { g_variant_unref(child) }
            return DBusValue(reading: child)
        }
    }
}
