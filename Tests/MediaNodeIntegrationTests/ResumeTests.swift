import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealEngineCommandTests {
    /// The car switched off and on: the real daemon stopped (SIGTERM or SIGKILL) and started again on the
    /// same catalog file, its output heard in a WAV file.
    @Suite("Resume after a restart", .serialized)
    struct ResumeTests {
        static let progressInterval = 1.0
        /// How far a position read from now playing (elapsed plus wall time since its timestamp) may run
        /// ahead of the audio on a loaded machine.
        static let slack = 0.75

        /// Three 20 s tones (440, 660, 880 Hz) in one album, a broker, and a watcher on the node's topics.
        final class Car: @unchecked Sendable {
            let directory: URL
            let library: URL
            let tracks: [URL]
            let broker: MosquittoBroker
            let watcher: TestMQTTClient
            let prefix = "medianode/resume"
            var runs = 0

            init() async throws {
                let directory = try AudioFixtures.makeTemporaryDirectory("resume")
                let library = directory.appendingPathComponent("music")
                self.directory = directory
                self.library = library
                tracks = try await AudioFixtures.album(count: 3, seconds: 20, album: "Ignition", artist: "Key")
                    .asyncMap { try await AudioFixtures.writeTone($0, in: library) }
                broker = try await MosquittoBroker()
                watcher = try TestMQTTClient(brokerURL: broker.url)
                try await watcher.connect()
                try await watcher.subscribeAndSettle("\(prefix)/#")
            }

            func close() async {
                await watcher.disconnect()
                broker.stop()
                try? FileManager.default.removeItem(at: directory)
            }

            func wav(_ run: Int) -> URL { directory.appendingPathComponent("run\(run).wav") }

            /// Starts the daemon on the car's catalog file and returns once it says `online`; what the broker
            /// kept from the run before is cleared from the watcher first, so all it holds is this run's.
            func start(_ extra: [String] = []) async throws -> NodeProcess {
                runs += 1
                await watcher.clear()
                let node = try NodeProcess(arguments: [
                    "--broker", broker.url, "--node-id", "resume", "--library", library.path,
                    "--database", directory.appendingPathComponent("catalog.sqlite").path,
                    "--audio-sink", "wav:\(wav(runs).path)", "--progress-interval", "\(ResumeTests.progressInterval)",
                ] + extra)
                _ = try await watcher.first(timeout: .seconds(60)) {
                    $0.topic == "\(self.prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
                }
                return node
            }

            func send(_ command: String, _ fields: String = "") async throws -> JSONValue {
                let id = "\(command)-\(UUID().uuidString.prefix(8))"
                let payload = fields.isEmpty ? #"{"id":"\#(id)"}"# : #"{"id":"\#(id)",\#(fields)}"#
                try await watcher.publish("\(prefix)/cmd/\(command)", payload)
                let reply = try await watcher.first(timeout: .seconds(15)) { message in
                    message.topic == "\(self.prefix)/result" && (try? JSONValue(parsing: message.payload))?["id"] == .string(id)
                }
                return try JSONValue(parsing: reply.payload)
            }

            /// The first message of this run on `topic` that matches.
            func first(_ topic: String, timeout: Duration = .seconds(15), _ what: @escaping @Sendable (JSONValue) -> Bool = { _ in true })
                async throws -> JSONValue {
                let message = try await watcher.first(timeout: timeout) { message in
                    message.topic == "\(self.prefix)/\(topic)" && (try? JSONValue(parsing: message.payload)).map(what) == true
                }
                return try JSONValue(parsing: message.payload)
            }

            func all(_ topic: String) async -> [JSONValue] {
                await watcher.messages(on: "\(prefix)/\(topic)").compactMap { try? JSONValue(parsing: $0.payload) }
            }

            /// Now playing's position now, extrapolated from its last message.
            func positionNow() async throws -> Double {
                let latest = try #require(await all("nowplaying").last)
                let elapsed = latest["elapsedPlaybackTime"]?.numberValue ?? 0
                let rate = latest["playbackRate"]?.numberValue ?? 0
                let timestamp = latest["timestamp"]?.numberValue ?? Date().timeIntervalSince1970
                return elapsed + (Date().timeIntervalSince1970 - timestamp) * rate
            }

            /// Plays the album's `track` (0-based) from the tree and waits for its sound.
            func play(track: Int) async throws {
                _ = try await first("content/tree/0/1") { $0["children"]?[0] != nil }
                let reply = try await send("playItem", #""indexPath":[0,1,0,\#(track)]"#)
                #expect(reply["status"] == "success", "\(reply.jsonString)")
            }

            func stop(_ node: NodeProcess, with signal: Int32) async {
                node.signal(signal)
                let status = await node.waitForExit(timeout: .seconds(15))
                #expect(status != nil, "the node did not exit on signal \(signal): \(node.log.suffix(2000))")
            }
        }

        @Test("SIGTERM while playing: the next start shows the same entry paused at the same place, queue and modes, with no stopped before it; play resumes there, heard")
        func sigtermRoundTrip() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            let first = try await car.start()
            try await car.play(track: 1)
            #expect(try await car.send("changeRepeatMode", #""repeatType":"all""#)["status"] == "success")
            #expect(try await car.send("changeShuffleMode", #""shuffleType":"items""#)["status"] == "success")
            #expect(try await car.send("changePlaybackPosition", #""positionTime":10"#)["status"] == "success")
            try await Task.sleep(for: .milliseconds(1500))
            let queueBefore = try #require(await car.all("queue").last)
            let heardUntil = try await car.positionNow()
            await car.stop(first, with: SIGTERM)

            let second = try await car.start()
            let nowPlaying = try await car.first("nowplaying")
            let identifier = try #require(nowPlaying["identifier"]?.stringValue)
            #expect(nowPlaying["state"] == "paused", "\(nowPlaying.jsonString)")
            #expect(nowPlaying["title"] == "Tone 660", "\(nowPlaying.jsonString)")
            let restored = try #require(nowPlaying["elapsedPlaybackTime"]?.numberValue)
            #expect(abs(restored - heardUntil) <= 0.5 + Self.slack, "restored at \(restored) s, the audio stopped at about \(heardUntil) s")
            let queue = try await car.first("queue")
            #expect(queue["identifiers"] == queueBefore["identifiers"], "\(queue.jsonString) after \(queueBefore.jsonString)")
            #expect(queue["index"] == queueBefore["index"] && queue["repeatMode"] == "all" && queue["shuffleMode"] == "items")
            #expect(!(await car.all("nowplaying")).contains { $0["state"] == "stopped" }, "a stopped now playing before the restored one")

            let played = try await car.send("play")
            #expect(played["status"] == "success", "\(played.jsonString)")
            let playing = try await car.first("nowplaying") { $0["state"] == "playing" }
            #expect(playing["identifier"] == .string(identifier))
            // The rest of the 660 Hz track is 20 s less the restored place; then another track follows.
            let remaining = 20 - restored
            try await Task.sleep(for: .seconds(remaining + 1.5))
            let wav = try WAVFile(contentsOf: car.wav(2))
            let timeline = wav.frequencyTimeline(window: 0.1)
            let first660 = try #require(timeline.firstIndex { $0.map { abs($0 - 660) < 20 } ?? false }, "660 Hz never heard")
            let after = timeline[first660...].firstIndex { $0.map { abs($0 - 660) >= 20 } ?? false } ?? timeline.count
            let heard660 = Double(after - first660) * 0.1
            #expect(abs(heard660 - remaining) < 0.6, "heard \(heard660) s of the track after play, \(remaining) s were left at the restored place")
            await car.stop(second, with: SIGTERM)
        }

        @Test("kill -9 while playing: the restored place is at most one progress interval behind the audio, never ahead")
        func killWhilePlaying() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            for round in 1...3 {
                let node = try await car.start()
                try await car.play(track: round % 3)
                try await Task.sleep(for: .milliseconds(2300 + 700 * round))
                let heardUntil = try await car.positionNow()
                await car.stop(node, with: SIGKILL)
                let restarted = try await car.start()
                let nowPlaying = try await car.first("nowplaying")
                let restored = try #require(nowPlaying["elapsedPlaybackTime"]?.numberValue, "\(nowPlaying.jsonString)")
                #expect(nowPlaying["state"] == "paused")
                #expect(restored <= heardUntil + 0.25, "round \(round): restored at \(restored) s, ahead of the audio at \(heardUntil) s")
                #expect(restored >= heardUntil - Self.progressInterval - Self.slack,
                        "round \(round): restored at \(restored) s, more than one interval behind \(heardUntil) s")
                await car.stop(restarted, with: SIGTERM)
            }
        }

        @Test("--resume playing plays on by itself within 2 s of online; paused at shutdown it starts paused even so; --resume off starts stopped and empty")
        func resumeModes() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            let first = try await car.start()
            try await car.play(track: 0)
            try await Task.sleep(for: .seconds(1))
            await car.stop(first, with: SIGTERM)

            let onlineAt = ContinuousClock.now
            let second = try await car.start(["--resume", "playing"])
            let playing = try await car.first("nowplaying", timeout: .seconds(5)) { $0["state"] == "playing" }
            #expect(ContinuousClock.now - onlineAt < .seconds(2) + .milliseconds(500), "playing came \(ContinuousClock.now - onlineAt) after the start")
            #expect(playing["title"] == "Tone 440")
            #expect(try await car.send("pause")["status"] == "success")
            await car.stop(second, with: SIGTERM)

            let third = try await car.start(["--resume", "playing"])
            let paused = try await car.first("nowplaying")
            #expect(paused["state"] == "paused" && paused["title"] == "Tone 440", "\(paused.jsonString)")
            try await Task.sleep(for: .seconds(2))
            #expect(!(await car.all("nowplaying")).contains { $0["state"] == "playing" }, "a node paused at shutdown played on")
            await car.stop(third, with: SIGTERM)

            let fourth = try await car.start(["--resume", "off"])
            let stopped = try await car.first("nowplaying")
            #expect(stopped["state"] == "stopped", "\(stopped.jsonString)")
            let queue = try await car.first("queue")
            #expect(queue["identifiers"] == .array([]), "\(queue.jsonString)")
            await car.stop(fourth, with: SIGTERM)
        }

        @Test("a file removed while the car was off is left out: the next entry is current at 0 s; with the last one gone, the node starts stopped")
        func removedFiles() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            let first = try await car.start()
            try await car.play(track: 1)
            #expect(try await car.send("changePlaybackPosition", #""positionTime":8"#)["status"] == "success")
            let queueBefore = try #require(await car.all("queue").last?["identifiers"]?.arrayValue)
            await car.stop(first, with: SIGTERM)
            try FileManager.default.removeItem(at: car.tracks[1])

            let second = try await car.start()
            let nowPlaying = try await car.first("nowplaying")
            #expect(nowPlaying["state"] == "paused" && nowPlaying["title"] == "Tone 880", "\(nowPlaying.jsonString)")
            #expect(nowPlaying["elapsedPlaybackTime"]?.numberValue == 0, "\(nowPlaying.jsonString)")
            let queue = try await car.first("queue")
            #expect(queue["identifiers"]?.arrayValue == [queueBefore[0], queueBefore[2]], "\(queue.jsonString)")
            #expect(queue["index"] == 1)
            #expect(try await car.send("play")["status"] == "success")
            _ = try await car.first("nowplaying") { $0["state"] == "playing" && $0["title"] == "Tone 880" }
            await car.stop(second, with: SIGTERM)
            try FileManager.default.removeItem(at: car.tracks[2])

            let third = try await car.start()
            let stopped = try await car.first("nowplaying")
            #expect(stopped["state"] == "stopped", "\(stopped.jsonString)")
            await car.stop(third, with: SIGTERM)
        }

        @Test("a live stream comes back as the current item, paused, without connecting; play connects to it again, heard")
        func liveStream() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            let server = try await RadioStreamServer()
            defer { server.stop() }
            let catalog = car.directory.appendingPathComponent("stations.json")
            let document: JSONValue = [
                "format": "medianode-catalog", "version": 1,
                "items": [["id": "stations", "title": "Stations", "children": [
                    ["id": "tone", "title": "Tone FM", "live": true, "uri": .string(server.url("/tone.ogg").absoluteString)],
                ]]],
            ]
            try Data(document.jsonBytes).write(to: catalog)
            let source = try RemoteCatalogProvider(location: catalog.path, fetcher: StandardCatalogFetcher()).source
            let station = "\(source.identifier)/tone"
            let first = try await car.start(["--catalog", catalog.path])
            var reply = JSONValue.null
            for _ in 0..<50 {
                reply = try await car.send("playItem", #""identifier":"\#(station)""#)
                if reply["status"] == "success" { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            try await Task.sleep(for: .seconds(1))
            await car.stop(first, with: SIGTERM)
            let requestsBefore = await server.requests().count

            let second = try await car.start(["--catalog", catalog.path])
            let nowPlaying = try await car.first("nowplaying")
            #expect(nowPlaying["state"] == "paused" && nowPlaying["identifier"] == .string(station), "\(nowPlaying.jsonString)")
            #expect(nowPlaying["isLiveStream"] == true)
            try await Task.sleep(for: .seconds(1))
            await #expect(server.requests().count == requestsBefore, "the stream was connected to before play")
            #expect(try await car.send("play")["status"] == "success")
            _ = try await car.first("nowplaying") { $0["state"] == "playing" }
            try await Task.sleep(for: .seconds(3))
            let wav = try WAVFile(contentsOf: car.wav(2))
            let tone = wav.dominantFrequency(from: max(0, wav.duration - 1.5), length: 1)
            #expect(tone.map { abs($0 - 440) < 15 } == true, "heard \(tone ?? 0) Hz after play")
            await car.stop(second, with: SIGTERM)
        }

        @Test("a damaged play-state row is logged and ignored: the node starts stopped, and saves anew")
        func damagedRow() async throws {
            let car = try await Car()
            defer { Task { await car.close() } }
            let first = try await car.start()
            try await car.play(track: 0)
            await car.stop(first, with: SIGTERM)
            // The play state is kept in the node state file beside the catalog.
            let stateFile = car.directory.appendingPathComponent("catalog.sqlite.state").path
            let damage = try await ToolRun.capture("sqlite3", [stateFile, "UPDATE play_state SET elapsed = 'half way', context = x'ff00'"])
            #expect(damage.status == 0, "\(damage.output)")

            let second = try await car.start()
            let stopped = try await car.first("nowplaying")
            #expect(stopped["state"] == "stopped", "\(stopped.jsonString)")
            #expect(await second.waitForLog("the saved play state cannot be read"), "\(second.log.suffix(2000))")
            try await car.play(track: 2)
            await car.stop(second, with: SIGTERM)

            let third = try await car.start()
            let restored = try await car.first("nowplaying")
            #expect(restored["state"] == "paused" && restored["title"] == "Tone 880", "\(restored.jsonString)")
            await car.stop(third, with: SIGTERM)
        }
    }
}
