import MediaJSON

/// A payload field a command reads and the kind of value it takes, declared beside the command's decoder:
/// what the fuzz test generates payloads from and what asyncapi.yaml's schema of the request is written
/// from (`medianode docs`). The decoder still checks every value.
public struct CommandField: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case number, string, bool, strings
        /// An array of non-negative integers.
        case indexPath
        /// One of these strings.
        case choice([String])
        /// A number, or one of these strings (playbackRate "next", volume "up" / "down").
        case numberOr([String])
    }

    public var name: String
    public var kind: Kind
    /// Whether a request without it is refused ("missing field").
    public var isRequired: Bool
    /// JSON Schema keywords that narrow the kind (bounds, lengths, a pattern, a default, a description); for
    /// `numberOr` they narrow its number. A `$ref` stands for the whole schema.
    public var schema: [String: JSONValue]

    public init(_ name: String, _ kind: Kind, required: Bool = false, schema: [String: JSONValue] = [:]) {
        self.name = name
        self.kind = kind
        self.isRequired = required
        self.schema = schema
    }

    /// A field that takes one of an enumeration's raw values.
    public static func choice<E: RawRepresentable & CaseIterable>(
        _ name: String, _: E.Type, required: Bool = false, schema: [String: JSONValue] = [:]
    ) -> Self where E.RawValue == String {
        .init(name, .choice(E.allCases.map(\.rawValue)), required: required, schema: schema)
    }

    /// An item identifier, as asyncapi.yaml's `Identifier` schema describes it.
    public static func identifier(_ name: String = "identifier", required: Bool = false, description: String? = nil) -> Self {
        var schema: [String: JSONValue] = ["$ref": "#/components/schemas/Identifier"]
        if let description { schema["description"] = .string(description) }
        return .init(name, .string, required: required, schema: schema)
    }

    /// The JSON Schema of the field's value.
    public var jsonSchema: JSONValue {
        if schema["$ref"] != nil { return ["$ref": schema["$ref"]!] }
        var base: [String: JSONValue]
        switch kind {
        case .number: base = ["type": "number"]
        case .string: base = ["type": "string"]
        case .bool: base = ["type": "boolean"]
        case .strings: base = ["type": "array", "items": ["$ref": "#/components/schemas/Identifier"]]
        case .indexPath: base = ["type": "array", "items": ["type": "integer", "minimum": 0]]
        case let .choice(values): base = ["enum": .array(values.map(JSONValue.string))]
        case let .numberOr(values):
            var number: [String: JSONValue] = ["type": "number"]
            var outer: [String: JSONValue] = [:]
            for (key, value) in schema {
                if ["description", "default"].contains(key) { outer[key] = value } else { number[key] = value }
            }
            outer["oneOf"] = [.object(number), values.count == 1 ? ["const": .string(values[0])] : ["enum": .array(values.map(JSONValue.string))]]
            return .object(outer)
        }
        base.merge(schema) { _, narrowed in narrowed }
        return .object(base)
    }
}
