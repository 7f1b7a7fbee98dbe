import MediaJSON

/// Where the center keeps one command's handlers. Opaque: only the center reads it.
public struct CommandSlot: Sendable {
    let storage: any HandlerSlot
}

/// A validated request, its arguments bound to each handler.
struct PreparedCommand: Sendable {
    var handlers: [@Sendable () async -> CommandResult]
    /// Answers from memory when it can; only when the command has one handler.
    var immediate: (@Sendable () -> CommandResult?)?
    /// Why the center's state refuses these arguments (S17), checked after the enabled flag.
    var refusal: String?
}

/// One command's handlers, typed by its arguments, so that a payload is decoded once and each handler
/// gets the typed value.
protocol HandlerSlot: AnyObject, Sendable {
    var command: any AnyRemoteCommand { get }
    var isEmpty: Bool { get }
    func remove(_ token: CommandHandlerToken)
    func prepare(_ payload: [String: JSONValue], state: CommandCenterState, capabilities: CommandCapabilities)
        throws(CommandValidationError) -> PreparedCommand
}

/// Guarded by the center's lock: every member is used inside `RemoteCommandCenter.state.withLock`.
final class TypedCommandSlot<Arguments: Sendable>: HandlerSlot, @unchecked Sendable {
    struct Registration {
        var token: CommandHandlerToken
        var handler: @Sendable (Arguments) async -> CommandResult
        var immediate: (@Sendable (Arguments) -> CommandResult?)?
    }

    let typed: RemoteCommand<Arguments>
    var registrations: [Registration] = []

    init(command: RemoteCommand<Arguments>) { typed = command }

    var command: any AnyRemoteCommand { typed }
    var isEmpty: Bool { registrations.isEmpty }

    func remove(_ token: CommandHandlerToken) { registrations.removeAll { $0.token == token } }

    func prepare(_ payload: [String: JSONValue], state: CommandCenterState, capabilities: CommandCapabilities)
        throws(CommandValidationError) -> PreparedCommand {
        let arguments = try typed.decode(payload, capabilities: capabilities)
        let handlers = registrations.map { registration -> @Sendable () async -> CommandResult in
            let handler = registration.handler
            return { await handler(arguments) }
        }
        var immediate: (@Sendable () -> CommandResult?)?
        if registrations.count == 1, let answer = registrations[0].immediate { immediate = { answer(arguments) } }
        return PreparedCommand(handlers: handlers, immediate: immediate,
                               refusal: typed.gate?(arguments, state, capabilities))
    }
}

extension RemoteCommand {
    public func makeSlot() -> CommandSlot { CommandSlot(storage: TypedCommandSlot(command: self)) }
}
