import Synchronization
import MediaJSON

/// Handles one validated command. Runs on the caller's task; may await the engine.
public typealias CommandHandler = @Sendable (RemoteCommandEvent) async -> CommandResult

/// Answers a validated command from what is at hand, without waiting for anything, or returns nil when
/// it cannot (then the command's `CommandHandler` answers it). Runs on the transport's thread.
public typealias ImmediateCommandHandler = @Sendable (RemoteCommandEvent) -> CommandResult?

/// A validated command on its way to its handlers.
public struct RemoteCommandEvent: Sendable, Equatable {
    public var command: RemoteCommand
    public var arguments: CommandArguments
    public var id: String?
}

/// Identifies one registered handler so it can be removed again (S3).
public struct CommandHandlerToken: Hashable, Sendable {
    let rawValue: UInt64
}

/// The one command center of the node (S1-S3, S7): a run-time registry of handlers per command, the
/// enabled flags and capability parameters that `P/commands` shows, and the single place where every
/// request is validated and answered.
public final class RemoteCommandCenter: Sendable {
    public let capabilities: CommandCapabilities
    /// Yields whenever the capability document may have changed; a burst of changes coalesces into one.
    public let changes: AsyncStream<Void>
    private let changeContinuation: AsyncStream<Void>.Continuation
    private let state = Mutex(State())

    struct Registration {
        var token: CommandHandlerToken
        var handler: CommandHandler
        var immediate: ImmediateCommandHandler?
    }

    struct State {
        var handlers: [RemoteCommand: [Registration]] = [:]
        var disabled: Set<RemoteCommand> = []
        var unavailable: Set<RemoteCommand> = []
        var parameters: [RemoteCommand: [String: JSONValue]] = [:]
        var currentPlaybackRate = 1.0
        var nextToken: UInt64 = 1
    }

    public init(capabilities: CommandCapabilities = .init()) {
        self.capabilities = capabilities
        (changes, changeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            for command in [RemoteCommand.like, .dislike, .bookmark] { state.parameters[command] = ["isActive": false] }
            state.parameters[.changeRepeatMode] = ["currentRepeatType": "off"]
            state.parameters[.changeShuffleMode] = ["currentShuffleType": "off"]
        }
    }

    // MARK: - Registry (S3)

    /// Adds a handler; several may serve one command and run in the order they were added.
    /// - Parameter immediate: answers from memory when it can, for `answerImmediately`; used only while
    ///   this is the command's one handler.
    @discardableResult
    public func addHandler(for command: RemoteCommand, immediate: ImmediateCommandHandler? = nil,
                           _ handler: @escaping CommandHandler) -> CommandHandlerToken {
        let token = state.withLock { state in
            let token = CommandHandlerToken(rawValue: state.nextToken)
            state.nextToken += 1
            state.handlers[command, default: []].append(Registration(token: token, handler: handler, immediate: immediate))
            return token
        }
        changeContinuation.yield()
        return token
    }

    public func removeHandler(_ token: CommandHandlerToken) {
        state.withLock { state in
            for command in state.handlers.keys { state.handlers[command]?.removeAll { $0.token == token } }
        }
        changeContinuation.yield()
    }

    /// Enables or disables a command (S2); a disabled command is refused and shown disabled.
    public func setEnabled(_ enabled: Bool, for command: RemoteCommand) {
        let changed = state.withLock { state in
            enabled ? state.disabled.remove(command) != nil : state.disabled.insert(command).inserted
        }
        if changed { changeContinuation.yield() }
    }

    /// Shows a command as unavailable in the current state (S2, S3: nothing loaded, a live stream) without
    /// refusing it: its handler still answers with the status that tells why (e.g.
    /// noActionableNowPlayingItem), as the status rules require.
    public func setAvailable(_ available: Bool, for commands: [RemoteCommand]) {
        let changed = state.withLock { state in
            var changed = false
            for command in commands {
                changed = (available ? state.unavailable.remove(command) != nil : state.unavailable.insert(command).inserted)
                    || changed
            }
            return changed
        }
        if changed { changeContinuation.yield() }
    }

    /// Sets a run-time capability parameter, e.g. `isActive` of like or `currentRepeatType`.
    public func setParameter(_ key: String, _ value: JSONValue, for command: RemoteCommand) {
        let changed = state.withLock { state in
            guard state.parameters[command]?[key] != value else { return false }
            state.parameters[command, default: [:]][key] = value
            return true
        }
        if changed { changeContinuation.yield() }
    }

    /// Tells the center the player's current rate, for the S17 rule.
    public func setCurrentPlaybackRate(_ rate: Double) {
        let changed = state.withLock { state in
            defer { state.currentPlaybackRate = rate }
            return state.currentPlaybackRate != rate
        }
        if changed { changeContinuation.yield() }
    }

    /// Whether the command shows as enabled in `P/commands`.
    public func isEnabled(_ command: RemoteCommand) -> Bool {
        state.withLock { isShownEnabled(command, in: $0) }
    }

    /// The `P/commands` document: one entry per command with its enabled flag and parameters (S2, S7).
    public var capabilitiesDocument: JSONValue {
        state.withLock { state in
            var document: [String: JSONValue] = [:]
            for command in RemoteCommand.allCases {
                var entry = staticParameters(for: command)
                entry.merge(state.parameters[command] ?? [:]) { _, dynamic in dynamic }
                entry["enabled"] = .bool(isShownEnabled(command, in: state))
                document[command.rawValue] = .object(entry)
            }
            return .object(document)
        }
    }

    // MARK: - Answering

    /// Decodes, validates and performs one request; always returns exactly one reply.
    public func handle(name: String, payload: [UInt8], maximumPayload: Int = CommandRequest.defaultMaximumPayload)
        async -> CommandReply {
        switch CommandRequest.decode(name: name, payload: payload, maximumPayload: maximumPayload) {
        case let .refused(reply): return reply
        case let .request(request): return await perform(request)
        }
    }

    public func perform(_ request: CommandRequest) async -> CommandReply {
        switch prepare(request) {
        case let .answered(reply): return reply
        case let .ready(event, registrations):
            let result = await Self.run(registrations.map(\.handler)[...], event)
            return CommandReply(id: request.id, command: request.name, result: result)
        }
    }

    /// Decodes, validates and answers one request when that needs no waiting: a refused request, or one
    /// whose handler answers from memory (a browse of a published node). Nil: `handle` must answer it.
    public func answerImmediately(name: String, payload: [UInt8],
                                  maximumPayload: Int = CommandRequest.defaultMaximumPayload) -> CommandReply? {
        switch CommandRequest.decode(name: name, payload: payload, maximumPayload: maximumPayload) {
        case let .refused(reply): return reply
        case let .request(request):
            switch prepare(request) {
            case let .answered(reply): return reply
            case let .ready(event, registrations):
                guard registrations.count == 1, let immediate = registrations[0].immediate,
                      let result = immediate(event), result.deferred == nil
                else { return nil }
                return CommandReply(id: request.id, command: request.name, result: result)
            }
        }
    }

    enum Preparation {
        /// Refused before any handler ran.
        case answered(CommandReply)
        case ready(RemoteCommandEvent, [Registration])
    }

    /// Everything about a request that is checked once, centrally: the name, the arguments, their ranges,
    /// whether a handler serves the command and whether it is enabled.
    func prepare(_ request: CommandRequest) -> Preparation {
        func refuse(_ message: String) -> Preparation {
            .answered(CommandReply(id: request.id, command: request.name, result: .failed(message)))
        }
        guard let command = RemoteCommand(rawValue: request.name) else {
            return refuse("unknown command '\(request.name)'")
        }
        let arguments: CommandArguments
        do {
            arguments = try command.parseArguments(request.payload)
            try checkRanges(arguments)
        } catch {
            return refuse(error.message)
        }
        let gate: Result<[Registration], CommandValidationError> = state.withLock { state in
            let registrations = state.handlers[command] ?? []
            guard !registrations.isEmpty else { return .failure(.init("\(command.rawValue) is not implemented yet")) }
            guard !state.disabled.contains(command) else { return .failure(.init("\(command.rawValue) is disabled")) }
            // S17: hidden from head units while the rate is outside their set, yet explicit player rates still work.
            if command == .changePlaybackRate, case .changePlaybackRate(.next) = arguments,
               !capabilities.isSupportedByHeadUnit(state.currentPlaybackRate) {
                return .failure(.init(
                    "changePlaybackRate \"next\" is disabled while the rate (\(state.currentPlaybackRate)) is outside "
                        + "supportedPlaybackRates; send an explicit rate from playerPlaybackRates"))
            }
            return .success(registrations)
        }
        switch gate {
        case let .failure(error): return refuse(error.message)
        case let .success(registrations):
            return .ready(RemoteCommandEvent(command: command, arguments: arguments, id: request.id), registrations)
        }
    }

    /// Runs handlers in order until one fails. A handler that answers later takes the rest of the chain
    /// with it, so they still run after it, and only if it succeeds.
    static func run(_ handlers: ArraySlice<CommandHandler>, _ event: RemoteCommandEvent) async -> CommandResult {
        var result = CommandResult.success
        for (offset, handler) in zip(handlers.indices, handlers) {
            result = await handler(event)
            if let deferred = result.deferred {
                let rest = handlers[(offset + 1)...]
                guard !rest.isEmpty else { return result }
                return .later {
                    let first = await deferred.result()
                    guard first.status == .success else { return first }
                    return await run(rest, event)
                }
            }
            if result.status != .success { break }
        }
        return result
    }

    // MARK: - Internals

    private func checkRanges(_ arguments: CommandArguments) throws(CommandValidationError) {
        switch arguments {
        case let .rating(value):
            guard value >= capabilities.minimumRating, value <= capabilities.maximumRating else {
                throw .init("'rating' must be within \(Self.format(capabilities.minimumRating))..."
                    + "\(Self.format(capabilities.maximumRating)), got \(Self.format(value))")
            }
        case let .changePlaybackRate(.rate(rate)):
            guard capabilities.isAcceptedByPlayer(rate) else {
                let rates = capabilities.playerPlaybackRates.map(Self.format).joined(separator: ", ")
                throw .init("playbackRate \(Self.format(rate)) is not one of the player's rates [\(rates)]")
            }
        default:
            break
        }
    }

    private func isShownEnabled(_ command: RemoteCommand, in state: State) -> Bool {
        guard !(state.handlers[command] ?? []).isEmpty, !state.disabled.contains(command),
              !state.unavailable.contains(command)
        else { return false }
        if command == .changePlaybackRate { return capabilities.isSupportedByHeadUnit(state.currentPlaybackRate) }
        return true
    }

    private func staticParameters(for command: RemoteCommand) -> [String: JSONValue] {
        switch command {
        case .skipForward, .skipBackward:
            ["preferredIntervals": .array(capabilities.preferredIntervals.map(JSONValue.number))]
        case .changePlaybackRate:
            [
                "supportedPlaybackRates": .array(capabilities.supportedPlaybackRates.map(JSONValue.number)),
                "playerPlaybackRates": .array(capabilities.playerPlaybackRates.map(JSONValue.number)),
            ]
        case .rating:
            ["minimumRating": .number(capabilities.minimumRating), "maximumRating": .number(capabilities.maximumRating)]
        case .like, .dislike, .bookmark:
            capabilities.feedbackTitles[command].map {
                ["localizedTitle": .string($0.title), "localizedShortTitle": .string($0.shortTitle)]
            } ?? [:]
        default:
            [:]
        }
    }

    static func format(_ value: Double) -> String { JSONValue.numberText(value) }
}
