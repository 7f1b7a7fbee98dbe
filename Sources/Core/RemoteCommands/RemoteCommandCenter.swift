import Synchronization
import MediaJSON

/// Identifies one registered handler so it can be removed again (S3).
public struct CommandHandlerToken: Hashable, Sendable {
    let rawValue: UInt64
}

/// The one command center of the node (S1-S3, S7): the command table, a run-time registry of handlers per
/// command, the enabled flags and capability parameters that `P/commands` shows, and the single place
/// where every request is decoded, validated and answered.
public final class RemoteCommandCenter: Sendable {
    public let capabilities: CommandCapabilities
    /// Yields whenever the capability document may have changed; a burst of changes coalesces into one.
    public let changes: AsyncStream<Void>
    private let changeContinuation: AsyncStream<Void>.Continuation
    private let state: Mutex<State>
    /// Counts changes, so an unchanged document is not made again: a node marks `P/commands` on every
    /// playback change, most of which change nothing it shows. Bumped after the change, outside the lock: a
    /// document made in between is made again on the next read.
    private let revision = Atomic<UInt64>(0)
    /// The table, by name; fixed at init, so it is read without the lock.
    private let commands: [String: any AnyRemoteCommand]
    private let order: [String]
    /// The names as the document's keys are written (sorted, as `jsonBytes` writes an object's keys).
    private let sortedNames: [String]
    /// What each command's parameters are under the node's configuration, which is fixed at init.
    private let staticParameters: [String: [String: JSONValue]]

    struct State {
        var slots: [String: CommandSlot] = [:]
        var disabled: Set<String> = []
        var parameters: [String: [String: JSONValue]] = [:]
        /// Parameters read from their owner as the document is made (see `showParameters`).
        var sources: [String: @Sendable () -> [String: JSONValue]] = [:]
        var shown = CommandCenterState()
        var nextToken: UInt64 = 1
        var rendered: Rendered?
        /// Each command's entry as last written: a play or a pause changes a few entries of some forty, and
        /// only those are written again.
        var renderedEntries: [String: (entry: [String: JSONValue], bytes: [UInt8])] = [:]
    }

    /// The last document made, with what it was made from.
    struct Rendered {
        let revision: UInt64
        let sourced: [String: [String: JSONValue]]
        let bytes: [UInt8]
    }

    /// - Parameter commands: the commands this center answers, in the order `P/commands` lists them.
    public init(capabilities: CommandCapabilities = .init(), commands: [any AnyRemoteCommand]) {
        self.capabilities = capabilities
        (changes, changeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.commands = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0) })
        self.order = commands.map(\.name)
        sortedNames = commands.map(\.name).sorted()
        staticParameters = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0.parameters(capabilities)) })
        var initial = State()
        for command in commands {
            initial.slots[command.name] = command.makeSlot()
            if !command.initialParameters.isEmpty { initial.parameters[command.name] = command.initialParameters }
        }
        state = Mutex(initial)
    }

    /// The lane a command takes; nil for a name that is not a command.
    public func lane(of name: String) -> CommandLane? { commands[name]?.lane }

    // MARK: - Registry (S3)

    /// Adds a handler; several may serve one command and run in the order they were added.
    /// - Parameter immediate: answers from memory when it can, for `answerImmediately`; used only while
    ///   this is the command's one handler.
    @discardableResult
    public func addHandler<Arguments>(
        for command: RemoteCommand<Arguments>, immediate: (@Sendable (Arguments) -> CommandResult?)? = nil,
        _ handler: @escaping @Sendable (Arguments) async -> CommandResult
    ) -> CommandHandlerToken {
        let token = state.withLock { state in
            let token = CommandHandlerToken(rawValue: state.nextToken)
            state.nextToken += 1
            guard let slot = state.slots[command.name]?.storage as? TypedCommandSlot<Arguments> else {
                preconditionFailure("\(command.name) is not in this center's command table")
            }
            slot.registrations.append(.init(token: token, handler: handler, immediate: immediate))
            return token
        }
        noteChange()
        return token
    }

    public func removeHandler(_ token: CommandHandlerToken) {
        state.withLock { state in
            for slot in state.slots.values { slot.storage.remove(token) }
        }
        noteChange()
    }

    /// Enables or disables a command (S2); a disabled command is refused and shown disabled.
    public func setEnabled<Arguments>(_ enabled: Bool, for command: RemoteCommand<Arguments>) {
        let changed = state.withLock { state in
            enabled ? state.disabled.remove(command.name) != nil : state.disabled.insert(command.name).inserted
        }
        if changed { noteChange() }
    }

    /// Tells the center what is loaded, for the commands whose availability depends on it (S2, S3, S14).
    /// A command shown unavailable is still performed: its handler answers with the status that tells why.
    public func setNowPlaying(isItemLoaded: Bool, isLiveStream: Bool) {
        let changed = state.withLock { state in
            defer { (state.shown.isItemLoaded, state.shown.isLiveStream) = (isItemLoaded, isLiveStream) }
            return state.shown.isItemLoaded != isItemLoaded || state.shown.isLiveStream != isLiveStream
        }
        if changed { noteChange() }
    }

    /// Tells the center whether the current item has chapters, for `skipToChapter` (version 1.3).
    public func setCurrentItemHasChapters(_ hasChapters: Bool) {
        let changed = state.withLock { state in
            defer { state.shown.hasChapters = hasChapters }
            return state.shown.hasChapters != hasChapters
        }
        if changed { noteChange() }
    }

    /// Sets a run-time capability parameter, e.g. `isActive` of like.
    public func setParameter<Arguments>(_ key: String, _ value: JSONValue, for command: RemoteCommand<Arguments>) {
        setParameter(key, value, forCommandNamed: command.name)
    }

    /// Sets a run-time capability parameter of the command named `name`.
    public func setParameter(_ key: String, _ value: JSONValue, forCommandNamed name: String) {
        let changed = state.withLock { state in
            guard state.parameters[name]?[key] != value else { return false }
            state.parameters[name, default: [:]][key] = value
            return true
        }
        if changed { noteChange() }
    }

    /// Shows `source`'s parameters in the command's entry of the document, read each time the document is
    /// made: for state whose owner keeps it (the output level's `volume`), so the center holds no copy.
    /// `source` runs under the center's lock: it must only read (a lock of its own is fine).
    public func showParameters(of name: String, _ source: @escaping @Sendable () -> [String: JSONValue]) {
        state.withLock { $0.sources[name] = source }
        noteChange()
    }

    /// Tells the center the player's current rate, for the S17 rule.
    public func setCurrentPlaybackRate(_ rate: Double) {
        let changed = state.withLock { state in
            defer { state.shown.currentPlaybackRate = rate }
            return state.shown.currentPlaybackRate != rate
        }
        if changed { noteChange() }
    }

    /// Whether the command shows as enabled in `P/commands`.
    public func isEnabled<Arguments>(_ command: RemoteCommand<Arguments>) -> Bool {
        state.withLock { isShownEnabled(command.name, in: $0) }
    }

    /// The `P/commands` document: one entry per command with its enabled flag and parameters (S2, S7).
    public var capabilitiesDocument: JSONValue {
        state.withLock { state in document(in: state, sourced: state.sources.mapValues { $0() }) }
    }

    /// The `P/commands` document as published: made again only when something it shows changed.
    public var capabilitiesDocumentBytes: [UInt8] {
        state.withLock { state in
            let revision = revision.load(ordering: .acquiring)
            let sourced = state.sources.mapValues { $0() }
            if let rendered = state.rendered, rendered.revision == revision, rendered.sourced == sourced {
                return rendered.bytes
            }
            let bytes = documentBytes(in: &state, sourced: sourced)
            state.rendered = Rendered(revision: revision, sourced: sourced, bytes: bytes)
            return bytes
        }
    }

    private func document(in state: State, sourced: [String: [String: JSONValue]]) -> JSONValue {
        var document: [String: JSONValue] = [:]
        for name in order where commands[name] != nil {
            document[name] = .object(entry(name, in: state, sourced: sourced))
        }
        return .object(document)
    }

    private func entry(_ name: String, in state: State, sourced: [String: [String: JSONValue]]) -> [String: JSONValue] {
        var entry = staticParameters[name] ?? [:]
        entry.merge(state.parameters[name] ?? [:]) { _, dynamic in dynamic }
        if let shown = sourced[name] { entry.merge(shown) { _, shown in shown } }
        entry["enabled"] = .bool(isShownEnabled(name, in: state))
        return entry
    }

    /// `document(...).jsonBytes`, with the entries that did not change since the last one copied as written.
    private func documentBytes(in state: inout State, sourced: [String: [String: JSONValue]]) -> [UInt8] {
        var out = JSONByteWriter(capacity: state.rendered?.bytes.count ?? 2048)
        out.raw("{")
        for (index, name) in sortedNames.enumerated() {
            let entry = entry(name, in: state, sourced: sourced)
            let written: [UInt8]
            if let last = state.renderedEntries[name], last.entry == entry {
                written = last.bytes
            } else {
                written = JSONValue.object(entry).jsonBytes
                state.renderedEntries[name] = (entry, written)
            }
            if index > 0 { out.raw(",") }
            out.string(name)
            out.raw(":")
            out.raw(encoded: written)
        }
        out.raw("}")
        return out.bytes
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
        case let .ready(prepared):
            let result = await Self.run(prepared.handlers[...])
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
            case let .ready(prepared):
                guard let immediate = prepared.immediate, let result = immediate(), result.deferred == nil else {
                    return nil
                }
                return CommandReply(id: request.id, command: request.name, result: result)
            }
        }
    }

    enum Preparation {
        /// Refused before any handler ran.
        case answered(CommandReply)
        case ready(PreparedCommand)
    }

    /// Everything about a request that is checked once, centrally: the name, the arguments and their
    /// ranges, whether a handler serves the command and whether it is enabled.
    func prepare(_ request: CommandRequest) -> Preparation {
        let outcome: Result<PreparedCommand, CommandValidationError> = state.withLock { state in
            guard let slot = state.slots[request.name]?.storage else {
                return .failure(.init("unknown command '\(request.name)'"))
            }
            do throws(CommandValidationError) {
                let prepared = try slot.prepare(request.payload, state: state.shown, capabilities: capabilities)
                guard !prepared.handlers.isEmpty else { return .failure(.init("\(request.name) is not implemented yet")) }
                guard !state.disabled.contains(request.name) else { return .failure(.init("\(request.name) is disabled")) }
                if let refusal = prepared.refusal { return .failure(.init(refusal)) }
                return .success(prepared)
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case let .failure(error):
            return .answered(CommandReply(id: request.id, command: request.name, result: .failed(error.message)))
        case let .success(prepared):
            return .ready(prepared)
        }
    }

    /// Runs handlers in order until one fails. A handler that answers later takes the rest of the chain
    /// with it, so they still run after it, and only if it succeeds.
    static func run(_ handlers: ArraySlice<@Sendable () async -> CommandResult>) async -> CommandResult {
        var result = CommandResult.success
        for (offset, handler) in zip(handlers.indices, handlers) {
            result = await handler()
            if let deferred = result.deferred {
                let rest = handlers[(offset + 1)...]
                guard !rest.isEmpty else { return result }
                return .later {
                    let first = await deferred.result()
                    guard first.status == .success else { return first }
                    return await run(rest)
                }
            }
            if result.status != .success { break }
        }
        return result
    }

    // MARK: - Internals

    private func noteChange() {
        revision.add(1, ordering: .releasing)
        changeContinuation.yield()
    }

    private func isShownEnabled(_ name: String, in state: State) -> Bool {
        guard let command = commands[name], let slot = state.slots[name], !slot.storage.isEmpty,
              !state.disabled.contains(name)
        else { return false }
        return command.isShownAvailable(in: state.shown, capabilities: capabilities)
    }
}
