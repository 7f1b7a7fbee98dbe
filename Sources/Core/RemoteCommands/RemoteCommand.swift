import MediaJSON

/// Which inbound lane a command takes (see the node's `InboundLanes`).
public enum CommandLane: Sendable {
    /// One at a time, in order, next to the audio engine.
    case playback
    /// Reads of the catalog: they never wait for the audio (S26).
    case content
}

/// When a command shows as enabled in `P/commands` (S2, S3, S14, S17). A command shown unavailable is
/// still performed: its handler answers with the status that tells why (noActionableNowPlayingItem).
public enum CommandAvailability: Sendable {
    case always
    /// Something is loaded.
    case withItem
    /// Something is loaded and it is not a live stream (S14).
    case withSeekableItem
    /// Something is loaded and the rate is one a head unit shows (S17).
    case withItemAtHeadUnitRate
    /// The current item has chapters (version 1.3).
    case withChapters
}

/// What the center knows when it decides whether a command shows as enabled.
public struct CommandCenterState: Sendable, Equatable {
    public var isItemLoaded = false
    public var isLiveStream = false
    public var currentPlaybackRate = 1.0
    public var hasChapters = false
}

/// How a command is described to people (topics.md's command table) and to tools (asyncapi.yaml), written
/// beside its definition; `medianode docs` puts it in both files.
public struct CommandDocumentation: Sendable, Equatable {
    /// topics.md's "payload fields" cell (Markdown); commands next to each other with the same text share a row.
    public var payload: String
    /// asyncapi.yaml's description of the command's channel: what it does, in a sentence or two.
    public var summary: String
    /// Fields of which a request carries exactly one (playItem's identifier, indexPath or url): the schema
    /// is one object per field.
    public var exactlyOneOf: [String]
    /// Fields of which a request carries at least one, when the schema cannot say which go together (the
    /// sleep timer's minutes, endOfItem or cancel): the decoder refuses the rest, and `request` says how.
    public var atLeastOneOf: [String]
    /// asyncapi.yaml's description of the request, where its fields do not say it alone.
    public var request: String?

    public init(payload: String, summary: String, exactlyOneOf: [String] = [], atLeastOneOf: [String] = [],
                request: String? = nil) {
        self.payload = payload
        self.summary = summary
        self.exactlyOneOf = exactlyOneOf
        self.atLeastOneOf = atLeastOneOf
        self.request = request
    }
}

/// One command of the contract: its name, lane, availability, capability parameters and the decoding of
/// its payload into `Arguments`, typed and checked once. A handler registered for it receives the typed
/// arguments, so it never re-examines the payload.
public struct RemoteCommand<Arguments: Sendable>: AnyRemoteCommand {
    public let name: String
    public let lane: CommandLane
    public let availability: CommandAvailability
    /// The payload fields it reads.
    public let fields: [CommandField]
    public let documentation: CommandDocumentation
    /// The parameters `P/commands` shows before anything changed them (a mark's `isActive`, a mode).
    public let initialParameters: [String: JSONValue]
    let staticParameters: @Sendable (CommandCapabilities) -> [String: JSONValue]
    /// Throws `CommandValidationError` (typed throws do not reach into closure literals yet).
    let decoder: @Sendable (PayloadFields, CommandCapabilities) throws -> Arguments
    /// A refusal that depends on the center's state rather than on the payload alone (S17's "next").
    let gate: (@Sendable (Arguments, CommandCenterState, CommandCapabilities) -> String?)?

    /// - Parameters:
    ///   - parameters: the capability parameters that follow from the configuration (S7).
    ///   - gate: a refusal that depends on the center's state rather than on the payload alone.
    ///   - decode: reads the payload into `Arguments`; throws `CommandValidationError` saying what was wrong.
    public init(_ name: String, lane: CommandLane = .playback, availability: CommandAvailability = .always,
                fields: [CommandField] = [], documentation: CommandDocumentation,
                initialParameters: [String: JSONValue] = [:],
                parameters: @escaping @Sendable (CommandCapabilities) -> [String: JSONValue] = { _ in [:] },
                gate: (@Sendable (Arguments, CommandCenterState, CommandCapabilities) -> String?)? = nil,
                decode: @escaping @Sendable (PayloadFields, CommandCapabilities) throws -> Arguments) {
        self.name = name
        self.lane = lane
        self.availability = availability
        self.fields = fields
        self.documentation = documentation
        self.initialParameters = initialParameters
        self.staticParameters = parameters
        self.gate = gate
        self.decoder = decode
    }

    /// Reads a payload (already known to be a JSON object); unknown extra fields are ignored.
    public func decode(_ payload: [String: JSONValue], capabilities: CommandCapabilities = .init())
        throws(CommandValidationError) -> Arguments {
        do {
            return try decoder(PayloadFields(payload), capabilities)
        } catch let error as CommandValidationError {
            throw error
        } catch {
            throw CommandValidationError("\(error)")
        }
    }

    public func parameters(_ capabilities: CommandCapabilities) -> [String: JSONValue] {
        staticParameters(capabilities)
    }

}

extension RemoteCommand where Arguments == Void {
    /// A command without payload fields.
    public init(_ name: String, lane: CommandLane = .playback, availability: CommandAvailability = .always,
                documentation: CommandDocumentation) {
        self.init(name, lane: lane, availability: availability, documentation: documentation) { _, _ in }
    }
}

/// A command of any argument type, as the center lists it.
public protocol AnyRemoteCommand: Sendable {
    var name: String { get }
    var lane: CommandLane { get }
    var availability: CommandAvailability { get }
    /// The payload fields it reads.
    var fields: [CommandField] { get }
    var documentation: CommandDocumentation { get }
    /// The parameters it shows before anything changed them.
    var initialParameters: [String: JSONValue] { get }
    /// The capability parameters that do not change at run time (S7).
    func parameters(_ capabilities: CommandCapabilities) -> [String: JSONValue]
    /// Where the center keeps this command's handlers.
    func makeSlot() -> CommandSlot
}

extension AnyRemoteCommand {
    func isShownAvailable(in state: CommandCenterState, capabilities: CommandCapabilities) -> Bool {
        switch availability {
        case .always: true
        case .withItem: state.isItemLoaded
        case .withSeekableItem: state.isItemLoaded && !state.isLiveStream
        case .withItemAtHeadUnitRate: state.isItemLoaded && capabilities.isSupportedByHeadUnit(state.currentPlaybackRate)
        case .withChapters: state.isItemLoaded && state.hasChapters
        }
    }
}

/// A command with no payload fields.
public typealias PlainCommand = RemoteCommand<Void>
