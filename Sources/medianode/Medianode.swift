import ArgumentParser

@main
struct Medianode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medianode",
        abstract: "A media node for vehicles: remote commands in, now playing and a browsable content tree out, over MQTT.",
        subcommands: [Run.self, CatalogCommand.self],
        defaultSubcommand: Run.self
    )
}
