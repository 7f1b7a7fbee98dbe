import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// `--loudness-target` with its negative value as the next argument, and in the config file, against the
/// real daemon: what the listener hears says which target it took.
@Suite("The daemon's --loudness-target takes a negative number")
final class LoudnessFlagTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("loudness-flag")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    @Test("--loudness-target -23 as two arguments, and -23 in the config file: a track tagged -10 dB plays 15 dB down",
          arguments: ["flag", "config"])
    func negativeTarget(given: String) async throws {
        let library = scratch.appendingPathComponent("music-\(given)")
        var tone = ToneTrack(fileName: "01 quiet.ogg", frequency: 440, seconds: 8, title: "Quiet")
        tone.extraTags = ["replaygain-track-gain=(double)-10"]
        _ = try await AudioFixtures.writeTone(tone, in: library)
        let wav = scratch.appendingPathComponent("out-\(given).wav")
        var arguments = ["--node-id", "target", "--audio-sink", "wav:" + wav.path, "--library", library.path,
                         "--database", scratch.appendingPathComponent("\(given).sqlite").path]
        if given == "flag" {
            arguments += ["--loudness-target", "-23"]
        } else {
            let config = scratch.appendingPathComponent("medianode.json")
            try Data(#"{"loudness-target": -23}"#.utf8).write(to: config)
            arguments += ["--config", config.path]
        }
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/target/#")
        let node = try NodeProcess(arguments: ["--broker", broker.url] + arguments)
        guard (try? await client.first(timeout: .seconds(30)) { message in
            message.topic == "medianode/target/content/tree/0/1"
                && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
        }) != nil else {
            Issue.record("the node did not come up: \(node.log)")
            return
        }
        try await client.publish("medianode/target/cmd/playItem", #"{"id":"play","indexPath":[0,1,0,0]}"#)
        let play = try await client.first(timeout: .seconds(20)) { $0.topic == "medianode/target/result" }
        #expect(try JSONValue(parsing: play.payload)["status"] == "success", "\(String(decoding: play.payload, as: UTF8.self))")
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, ((try? WAVFile(contentsOf: wav))?.duration ?? 0) < 1.5 {
            try await Task.sleep(for: .milliseconds(100))
        }
        // A 0.5-amplitude sine at volume 1: -18 LUFS less 10 dB of track gain, 5 dB lower again for -23.
        let heard = ratioInDecibels(try WAVFile(contentsOf: wav).rms(from: 0.5, length: 0.8) / (0.5 / 2.squareRoot()))
        #expect(abs(heard + 15) < 1, "heard \(heard) dB; log: \(node.log)")
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "log: \(node.log)")
        await client.disconnect()
    }
}
