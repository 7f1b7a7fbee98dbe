import MediaJSON
/// A request as it arrived on `P/cmd/<name>`, before validation.
public struct CommandRequest: Sendable, Equatable {
    /// The name from the topic, possibly not a known command.
    public var name: String
    public var id: String?
    public var payload: [String: JSONValue]

    public init(name: String, id: String? = nil, payload: [String: JSONValue] = [:]) {
        self.name = name
        self.id = id
        self.payload = payload
    }

    /// A payload either decodes to a request or is refused with its reply.
    public enum Decoded: Sendable, Equatable {
        case request(CommandRequest)
        case refused(CommandReply)
    }

    /// The payload size accepted unless `--max-payload` says otherwise.
    public static let defaultMaximumPayload = 65_536

    /// Decodes a raw payload. Every way it can be wrong becomes a reply that says what was wrong, so a
    /// caller can always answer exactly once.
    public static func decode(name: String, payload: [UInt8], maximumPayload: Int = defaultMaximumPayload)
        -> Decoded {
        func refuse(_ message: String, id: String? = nil) -> Decoded {
            .refused(CommandReply(id: id, command: name, result: .failed(message)))
        }
        guard payload.count <= maximumPayload else {
            return refuse("payload of \(payload.count) bytes exceeds the limit of \(maximumPayload) bytes")
        }
        let isBlank = payload.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isBlank { return .request(CommandRequest(name: name)) }  // commands without parameters may be empty
        guard String(validating: payload, as: UTF8.self) != nil else {
            return refuse("payload is not valid UTF-8")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: payload)
        } catch {
            return refuse(error.description)
        }
        guard case let .object(members) = document else {
            return refuse("payload must be a JSON object, got \(document.typeName)")
        }
        var id: String?
        switch members["id"] {
        case nil, .null?: id = nil
        case let .string(text)?: id = text
        case let .number(number)?:
            // Integers are echoed as text: a common integrator habit, and the reply still correlates.
            // Past 2^53 a double no longer holds the integer that was sent, and Int64 would trap.
            guard number == number.rounded(), abs(number) <= 9_007_199_254_740_992 else {
                return refuse("'id' must be a string")
            }
            id = String(Int64(number))
        case let other?: return refuse("'id' must be a string, got \(other.typeName)")
        }
        return .request(CommandRequest(name: name, id: id, payload: members))
    }
}
