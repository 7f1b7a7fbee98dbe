import ArgumentParser
import GStreamerAudio

@main
struct Medianode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medianode",
        abstract: "A media node for vehicles: remote commands in, now playing and a browsable content tree out, over MQTT.",
        subcommands: [Run.self, CatalogCommand.self, DocsCommand.self],
        defaultSubcommand: Run.self
    )

    static func main() async {
        limitMallocArenas()
        // Loading GStreamer's plugin registry takes longer than parsing the arguments and needs none of
        // them: it runs meanwhile, and the node's audio engine finds it done.
        GStreamerEngine.prepareInBackground()
        let arguments = Run.expandingHomeAssistantFlag(Run.joiningNegativeNumbers(Array(CommandLine.arguments.dropFirst())))
        do {
            await main(try ConfigFile.applying(to: arguments))
        } catch {
            exit(withError: error)
        }
    }
}
