import RemoteCommands

/// Every command of the node, each one entry: its name, lane, availability, payload fields, capability
/// parameters, decoding, documentation and handler (see `CommandEntry`), in the file of its area
/// (CommandTable+Transport.swift, +Position, +Feedback, +Content, +CarCommands). `all` is the order in which
/// topics.md and asyncapi.yaml list them.
///
/// Everything else is derived from the entries: the command center's table and its starting parameters,
/// the handlers the node installs (one loop, `install`), the fuzz test's generator, topics.md's command
/// rows and asyncapi.yaml's command channels (`medianode docs`, checked current by a test), and the
/// dashboard's list of commands (read from `P/commands`).
public enum CommandTable {
    typealias Entry = CommandEntry<CommandParts>

    static let all: [Entry] = transport + position + feedback + content + carCommands

    /// The definitions, in the order the documents list them.
    public static let commands: [any AnyRemoteCommand] = all.map(\.command)
    public static let names: [String] = commands.map(\.name)

    public static func command(named name: String) -> (any AnyRemoteCommand)? { byName[name] }

    /// The typed definition of a command, for code that decodes or sends its payload itself.
    public static func command<Arguments>(named name: String, as type: Arguments.Type) -> RemoteCommand<Arguments>? {
        byName[name] as? RemoteCommand<Arguments>
    }

    /// A command center for the node's commands, with no handlers yet.
    public static func makeCenter(capabilities: CommandCapabilities = .init()) -> RemoteCommandCenter {
        RemoteCommandCenter(capabilities: capabilities, commands: commands)
    }

    /// Installs every entry's handler with the parts this node has; an entry whose part is missing stays
    /// without one (S3: shown disabled, refused).
    static func install(in center: RemoteCommandCenter, parts: CommandParts) {
        for entry in all { entry.install(in: center, context: parts) }
    }

    private static let byName = Dictionary(uniqueKeysWithValues: commands.map { ($0.name, $0) })
}
