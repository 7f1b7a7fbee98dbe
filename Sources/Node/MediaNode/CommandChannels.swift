import MediaJSON
import RemoteCommands

/// asyncapi.yaml's command channels, their receive operations and their request messages, written from the
/// command table (`medianode docs`): a channel per entry at `{prefix}/cmd/<name>`, described by the entry's
/// summary, its payload schema made of the entry's fields (their kinds, bounds, choices, defaults and
/// descriptions) and which of them are required.
public enum CommandChannels {
    /// The three blocks, each the lines between its markers in asyncapi.yaml.
    static var channels: YAMLNode { .mapping(CommandTable.commands.map { (channelName($0), channel($0)) }) }
    static var operations: YAMLNode {
        .mapping(CommandTable.commands.map { ("receive" + capitalized($0.name), operation($0)) })
    }
    static var messages: YAMLNode { .mapping(CommandTable.commands.map { (messageName($0), message($0)) }) }

    static func channelName(_ command: any AnyRemoteCommand) -> String { "cmd" + capitalized(command.name) }
    static func messageName(_ command: any AnyRemoteCommand) -> String { command.name + "Request" }

    private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }

    /// The channel's address, `{prefix}/cmd/<name>`.
    public static func address(_ command: any AnyRemoteCommand) -> String { "{prefix}/cmd/\(command.name)" }

    /// The channel's description: the entry's summary and the one-reply rule.
    public static func description(_ command: any AnyRemoteCommand) -> String {
        command.documentation.summary + " Every command gets exactly one reply on P/result."
    }

    private static func channel(_ command: any AnyRemoteCommand) -> YAMLNode {
        .mapping([
            ("address", .scalar(.string(address(command)))),
            ("description", .scalar(.string(description(command)))),
            ("messages", .mapping([(messageName(command), reference("#/components/messages/\(messageName(command))"))])),
            ("parameters", .mapping([("prefix", reference("#/components/parameters/prefix"))])),
        ])
    }

    private static func operation(_ command: any AnyRemoteCommand) -> YAMLNode {
        let channel = "#/channels/\(channelName(command))"
        return .mapping([
            ("action", .scalar("receive")),
            ("channel", reference(channel)),
            ("summary", .scalar(.string(command.name))),
            ("messages", .sequence([reference("\(channel)/messages/\(messageName(command))")])),
            ("reply", .mapping([
                ("channel", reference("#/channels/result")),
                ("messages", .sequence([reference("#/channels/result/messages/reply")])),
            ])),
        ])
    }

    private static func message(_ command: any AnyRemoteCommand) -> YAMLNode {
        var members: [(String, YAMLNode)] = [
            ("name", .scalar(.string(messageName(command)))),
            ("title", .scalar(.string("\(command.name) request"))),
            ("contentType", .scalar("application/json")),
            ("payload", payload(command)),
        ]
        if mayBeEmpty(command) {
            let emptiness: JSONValue = command.fields.isEmpty ? "Empty for a command without fields." : "May be empty: every field is optional."
            members.append(("description", .scalar(emptiness)))
        }
        members.append(("bindings", .mapping([
            ("mqtt", .mapping([
                ("responseTopic", .mapping([("type", .scalar("string"))])),
                ("correlationData", .mapping([("type", .scalar("string"))])),
                ("bindingVersion", .scalar("0.2.0")),
            ])),
        ])))
        return .mapping(members)
    }

    /// A request without required fields may come empty (`play` with no payload at all).
    private static func mayBeEmpty(_ command: any AnyRemoteCommand) -> Bool {
        let documentation = command.documentation
        return !command.fields.contains(where: \.isRequired) && documentation.exactlyOneOf.isEmpty
            && documentation.atLeastOneOf.isEmpty
    }

    /// The request's JSON Schema: an object of the entry's fields beside the `id` every reply echoes; one
    /// object per field of `exactlyOneOf`; or, when nothing is required, that object or nothing.
    public static func payloadSchema(_ command: any AnyRemoteCommand) -> JSONValue {
        let documentation = command.documentation
        let id: JSONValue = ["type": ["string", "integer"], "description": "Echoed in the reply."]
        func object(_ fields: [CommandField]) -> [String: JSONValue] {
            var properties: [String: JSONValue] = ["id": id]
            for field in fields { properties[field.name] = field.jsonSchema }
            var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties)]
            let required = fields.filter(\.isRequired).map { JSONValue.string($0.name) }
            if !required.isEmpty { schema["required"] = .array(required) }
            return schema
        }
        var schema: [String: JSONValue]
        if !documentation.exactlyOneOf.isEmpty {
            let shared = command.fields.filter { !documentation.exactlyOneOf.contains($0.name) }
            schema = ["oneOf": .array(documentation.exactlyOneOf.compactMap { name in
                command.fields.first { $0.name == name }.map { field in
                    var one = field
                    one.isRequired = true
                    return .object(object([one] + shared))
                }
            })]
        } else if mayBeEmpty(command) {
            schema = ["oneOf": [.object(object(command.fields)), ["type": "null", "description": "An empty payload."]]]
        } else {
            schema = object(command.fields)
            if !documentation.atLeastOneOf.isEmpty {
                schema["anyOf"] = .array(documentation.atLeastOneOf.map { ["required": [.string($0)]] })
            }
        }
        if let request = documentation.request { schema["description"] = .string(request) }
        return .object(schema)
    }

    /// The payload in the order the document reads: the kind, its properties with `id` first and the
    /// entry's fields in their order, what is required, then the rest.
    private static func payload(_ command: any AnyRemoteCommand) -> YAMLNode {
        ordered(payloadSchema(command), fields: ["id"] + command.fields.map(\.name))
    }

    private static func ordered(_ schema: JSONValue, fields: [String]) -> YAMLNode {
        guard case let .object(members) = schema else { return YAMLNode(schema) }
        let keys = ["type", "properties", "required", "oneOf", "anyOf", "description"].filter { members[$0] != nil }
        return .mapping(keys.map { key in
            switch (key, members[key]!) {
            case let ("properties", .object(properties)):
                return (key, .mapping(fields.compactMap { name in properties[name].map { (name, YAMLNode($0)) } }))
            case let ("oneOf", .array(choices)):
                return (key, .sequence(choices.map { ordered($0, fields: fields) }))
            case let (_, value):
                return (key, YAMLNode(value))
            }
        })
    }

    private static func reference(_ target: String) -> YAMLNode { .mapping([("$ref", .scalar(.string(target)))]) }
}
