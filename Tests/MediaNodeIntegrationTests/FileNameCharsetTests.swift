import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// A library whose file names are not all UTF-8, as on a USB stick written by an older system.
@Suite("File names that are not UTF-8")
struct FileNameCharsetTests {
    /// `Café del Mar.ogg` with its name in Latin-1 (é is the one byte 0xE9), and `Plain.ogg`, both untagged so
    /// their titles come from their names.
    static func makeLibrary(in directory: URL) async throws -> (music: URL, latin1Name: [UInt8]) {
        let music = directory.appendingPathComponent("music/Mixed")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for (name, frequency) in [("Plain.ogg", 440), ("cafe.ogg", 660)] {
            let (status, output) = try await ToolRun.capture("gst-launch-1.0", [
                "-q", "audiotestsrc", "freq=\(frequency)", "samplesperbuffer=441", "num-buffers=300", "volume=0.3", "!",
                "audio/x-raw,rate=44100,channels=2", "!", "audioconvert", "!", "vorbisenc", "!", "oggmux", "!",
                "filesink", "location=\(music.appendingPathComponent(name).path)",
            ])
            try #require(status == 0, "gst-launch failed: \(output)")
        }
        // Renamed by the name's bytes, with nothing of the node's own code between the test and the file system.
        let latin1Name = Array("Caf".utf8) + [0xE9] + Array(" del Mar.ogg".utf8)
        let target = (Array(music.path.utf8) + [0x2F] + latin1Name + [0]).map { CChar(bitPattern: $0) }
        let renamed = target.withUnsafeBufferPointer { rename(music.appendingPathComponent("cafe.ogg").path, $0.baseAddress!) }
        try #require(renamed == 0, "rename failed: errno \(errno)")
        return (directory.appendingPathComponent("music"), latin1Name)
    }

    @Test("medianode catalog scan counts the Latin-1 file as a playable item and lists it under its decoded name")
    func latin1NameScanned() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("charset-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (music, _) = try await Self.makeLibrary(in: directory)
        let database = directory.appendingPathComponent("catalog.sqlite").path
        let scan = try await ToolRun.capture(NodeProcess.binaryPath, ["catalog", "scan", music.path, "--database", database, "--verbose"])
        #expect(scan.status == 0 && scan.output.contains("2 playable items"), "\(scan.output)")
        let search = try await ToolRun.capture(NodeProcess.binaryPath, ["catalog", "search", "Mar", "--database", database])
        #expect(search.output.contains("Café del Mar"), "\(search.output)")
    }

    @Test("a file whose name is in Latin-1 is in the library under its decoded name, and plays")
    func latin1NameListedAndPlayed() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("charset")
        _ = try await Self.makeLibrary(in: directory)
        let rig = try await ContentRig.start(directory: directory)

        // Library > Songs: both files, the Latin-1 name decoded for reading.
        let songs = try await rig.waitForNode([0, 2]) { ($0?["childCount"]?.numberValue ?? 0) >= 2 }
        let titles = songs?["children"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        #expect(titles == ["Café del Mar", "Plain"], "\(songs?.jsonString ?? "no Songs list")")
        let identifier = try #require(songs?["children"]?[0]?["identifier"]?.stringValue)

        // It plays, from the file with that very name: its 660 Hz tone is heard.
        let reply = try await rig.running.send("playItem", #""identifier":"\#(identifier)""#)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        _ = try await rig.running.waitForAudio(atLeast: 1)
        let heard = try rig.running.tone(from: 0.3, length: 0.5) ?? 0
        #expect(abs(heard - 660) < 10, "heard \(heard) Hz")
        let title = await rig.running.nowPlaying?["title"]?.stringValue
        #expect(title == "Café del Mar")
        await rig.stop()
    }
}
