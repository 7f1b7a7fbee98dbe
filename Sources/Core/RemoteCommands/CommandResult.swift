import MediaJSON
/// The status a handler answers with (S4), with the seed's numeric codes.
public enum CommandStatus: String, Sendable, CaseIterable {
    case success
    case noSuchContent
    case noActionableNowPlayingItem
    case deviceNotFound
    case commandFailed

    public var code: Int {
        switch self {
        case .success: 0
        case .noSuchContent: 100
        case .noActionableNowPlayingItem: 110
        case .deviceNotFound: 120
        case .commandFailed: 200
        }
    }
}

/// What a handler returns: a status, a message saying why when it is not success, and optional data.
///
/// A handler that starts slow work returns `later`: the request is answered when that work finishes,
/// while the commands after it go on (S24: a head unit's play request is answered only once audio plays).
public struct CommandResult: Sendable, Equatable {
    public var status: CommandStatus
    public var message: String?
    /// The data as one value or as bytes already encoded (a page of the tree, encoded once, sent often).
    var payload: Payload?
    /// When set, the real result: the reply waits for it.
    public internal(set) var deferred: DeferredResult?

    enum Payload: Sendable {
        case value(JSONValue)
        case encoded(EncodedJSON)
    }

    public init(_ status: CommandStatus, message: String? = nil, data: JSONValue? = nil) {
        self.status = status
        self.message = message
        self.payload = data.map(Payload.value)
    }

    public var data: JSONValue? {
        get {
            switch payload {
            case nil: nil
            case let .value(value)?: value
            case let .encoded(encoded)?: encoded.value
            }
        }
        set { payload = newValue.map(Payload.value) }
    }

    /// The data as bytes; encodes a value on each call.
    public var encodedData: EncodedJSON? {
        switch payload {
        case nil: nil
        case let .value(value)?: EncodedJSON(value)
        case let .encoded(encoded)?: encoded
        }
    }

    public static let success = CommandResult(.success)
    public static func success(data: JSONValue) -> CommandResult { CommandResult(.success, data: data) }
    /// Success with data that is already encoded; the reply carries the bytes as they are.
    public static func success(encodedData: EncodedJSON) -> CommandResult {
        var result = CommandResult(.success)
        result.payload = .encoded(encodedData)
        return result
    }
    public static func failed(_ message: String) -> CommandResult { CommandResult(.commandFailed, message: message) }

    /// The request is answered with what `body` returns, once it returns.
    public static func later(_ body: @escaping @Sendable () async -> CommandResult) -> CommandResult {
        var result = CommandResult(.success)
        result.deferred = DeferredResult(body: body)
        return result
    }

    public static func == (lhs: CommandResult, rhs: CommandResult) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.encodedData == rhs.encodedData
            && (lhs.deferred == nil) == (rhs.deferred == nil)
    }
}

/// Work a handler started whose outcome is the command's real result.
public struct DeferredResult: Sendable {
    let body: @Sendable () async -> CommandResult

    /// Waits for the work, and for any work it defers in turn.
    public func result() async -> CommandResult {
        var result = await body()
        while let next = result.deferred { result = await next.body() }
        return result
    }
}

/// The single reply every request gets, on `P/result` and on its MQTT 5 response topic.
public struct CommandReply: Sendable, Equatable {
    public var id: String?
    /// The command name as it arrived, even when it is not a known command.
    public var command: String
    public var result: CommandResult

    public init(id: String?, command: String, result: CommandResult) {
        self.id = id
        self.command = command
        self.result = result
    }

    public var json: JSONValue {
        [
            "id": JSONValue(id), "command": .string(command), "status": .string(result.status.rawValue),
            "code": .number(Double(result.status.code)), "message": JSONValue(result.message),
            "data": result.data ?? .null,
        ]
    }

    /// The reply as sent: `json` encoded, with encoded data spliced in as it is.
    public var jsonBytes: [UInt8] {
        var writer = JSONObjectWriter(capacity: 160 + (result.encodedData?.bytes.count ?? 0))
        writer.member("code", .number(Double(result.status.code)))
        writer.member("command", .string(command))
        if let data = result.encodedData {
            writer.member("data", encoded: data)
        } else {
            writer.member("data", .null)
        }
        writer.member("id", JSONValue(id))
        writer.member("message", JSONValue(result.message))
        writer.member("status", .string(result.status.rawValue))
        return writer.finish()
    }

    /// The same reply with the deferred work's result, once it is known.
    public func finished() async -> CommandReply {
        guard let deferred = result.deferred else { return self }
        return CommandReply(id: id, command: command, result: await deferred.result())
    }
}
