import MediaJSON

/// One command as a unit: its definition (name, lane, availability, fields, capability parameters, decoding
/// and documentation) and the handler that performs it, reaching the part of `Context` that owns what the
/// command changes. `Context` is whatever the node installing the table hands its handlers (the core never
/// sees it); a table is a list of entries, installed in one loop.
public struct CommandEntry<Context: Sendable>: Sendable {
    public let command: any AnyRemoteCommand
    private let bind: @Sendable (RemoteCommandCenter, Context) -> Bool

    init(command: any AnyRemoteCommand, bind: @escaping @Sendable (RemoteCommandCenter, Context) -> Bool) {
        self.command = command
        self.bind = bind
    }

    /// The typed definition, for code that sends or decodes the command's payload itself (tests, a fuzzer).
    public func command<Arguments>(as _: Arguments.Type) -> RemoteCommand<Arguments>? {
        command as? RemoteCommand<Arguments>
    }

    /// Adds the entry's handler to `center` with its part of `context`. False when `context` lacks that
    /// part (a node without audio has no playback): the command then stays without a handler, shown
    /// disabled and refused, as S3 has it for a command nobody serves.
    @discardableResult
    public func install(in center: RemoteCommandCenter, context: Context) -> Bool { bind(center, context) }
}

extension RemoteCommand {
    /// This command as a table entry.
    ///
    /// - Parameters:
    ///   - part: the part of the context the handler works with, e.g. `\.playback`; nil leaves it unhandled.
    ///   - immediate: answers from memory when it can, without waiting (a browse of a published node).
    ///   - shown: capability parameters read from the part each time `P/commands` is rendered, so the
    ///     document shows the owner's state rather than a copy of it (the output level's `volume`).
    ///   - handler: performs the command; a line or two that hands the typed arguments to the part.
    public func handled<Context: Sendable, Part: Sendable>(
        by part: @escaping @Sendable (Context) -> Part?,
        immediate: (@Sendable (Arguments, Part) -> CommandResult?)? = nil,
        shown: (@Sendable (Part) -> [String: JSONValue])? = nil,
        _ handler: @escaping @Sendable (Arguments, Part) async -> CommandResult
    ) -> CommandEntry<Context> {
        let command = self
        return CommandEntry(command: self) { center, context in
            guard let owner = part(context) else { return false }
            var answer: (@Sendable (Arguments) -> CommandResult?)?
            if let immediate { answer = { arguments in immediate(arguments, owner) } }
            center.addHandler(for: command, immediate: answer) { arguments in await handler(arguments, owner) }
            if let shown { center.showParameters(of: command.name) { shown(owner) } }
            return true
        }
    }
}
