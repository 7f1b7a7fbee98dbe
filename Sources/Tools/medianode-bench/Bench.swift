import ArgumentParser

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medianode-bench",
        abstract: "Measures MediaNode beside the floor: the same operation done directly, in the same run.",
        subcommands: [
            AnnounceBench.self, CommandRoundTrip.self, CommandEffect.self, ContentBench.self, CatalogImportBench.self,
            CatalogScanBench.self, ChapterScanBench.self, DownloadBench.self, JSONBench.self, LoudnessBench.self, HTTPFetchBench.self,
            MemoryBench.self, MemoryFloor.self, MPRISBench.self, SoundServerBench.self,
            NowPlayingBench.self, ResumeBench.self, StartFloor.self, SearchBench.self, TreeTrafficBench.self, WriteBench.self,
        ]
    )
}
