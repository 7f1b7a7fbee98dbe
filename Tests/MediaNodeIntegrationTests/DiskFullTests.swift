import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// A car's storage fills up (downloads, logs, another program): the music must go on, and the log must
    /// stay readable rather than fill with the same complaint every second.
    @Suite("The catalog's disk full, in the real daemon", .serialized)
    struct DiskFullTests {
        @Test("playback and commands go on, failed saves are logged once per episode, nothing is corrupt, saving resumes",
              .enabled(if: ScratchMount.isAvailable, "\(ScratchMount.unavailableReason)"))
        func fullDiskUnderTheCatalog() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("disk-full")
            defer { try? FileManager.default.removeItem(at: directory) }
            let library = directory.appendingPathComponent("music")
            for track in AudioFixtures.album(count: 1, seconds: 40, album: "Full", artist: "Disk") {
                _ = try await AudioFixtures.writeTone(track, in: library)
            }
            let mount = try ScratchMount(bytes: 8 << 20)
            defer { mount.unmount() }
            let database = mount.directory.appendingPathComponent("catalog.sqlite").path
            let broker = try await MosquittoBroker()
            defer { broker.stop() }
            let prefix = "medianode/full"
            let client = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "full", "--audio-sink", "fake", "--library", library.path,
                "--database", database, "--progress-interval", "1"])
            defer { node.signal(SIGKILL) }
            _ = try await client.client.first(timeout: .seconds(60)) { message in
                message.topic == "\(prefix)/content/tree/0/1"
                    && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
            }
            try await expectSuccess(client, prefix, "playItem", #""indexPath":[0,1,0,0]"#, id: "play")
            let firstSave = try await savedPosition(database, newerThan: 0)

            // The write-ahead log is emptied first, as a checkpoint leaves it: otherwise saves would reuse its
            // space and the full disk would not be felt until it had to grow.
            _ = try await ToolRun.capture("sqlite3", ["-cmd", ".timeout 5000", database, "pragma wal_checkpoint(truncate)"])
            let filler = try await mount.fill()
            let filledAt = Date().timeIntervalSince1970
            // Commands and playback go on for a while on the full disk; each second a save fails.
            for round in 0..<3 {
                try await Task.sleep(for: .seconds(1.5))
                try await expectSuccess(client, prefix, "pause", "", id: "pause-\(round)")
                try await expectSuccess(client, prefix, "play", "", id: "play-\(round)")
            }
            #expect(await isPlaying(client, prefix), "the music stopped on a full disk")
            // One line for the whole episode per file: the items' positions in the catalog, and the play state in
            // the node state file (whose small commits may still fit in the space its file already has).
            let failures = node.log.split(separator: "\n").filter { $0.contains("could not save") }
            let positionFailures = failures.filter { $0.contains("could not save the position") }
            #expect(positionFailures.count == 1 && failures.count - positionFailures.count <= 1,
                    "one line for the whole episode per file; log: \(node.log)")
            await #expect(try latestSave(database) < filledAt, "a save got through on a full disk: the test proved nothing")

            try FileManager.default.removeItem(at: filler)
            let freedAt = Date().timeIntervalSince1970
            let resumed = try await savedPosition(database, newerThan: filledAt)
            print("disk full for \(Int(freedAt - filledAt)) s at a 1 s progress interval: \(failures.count) log line(s); "
                  + "a save got through \(String(format: "%.1f", resumed - freedAt)) s after space came back")
            #expect(resumed > firstSave)
            #expect(await node.waitForLog("saving positions again"), "log: \(node.log)")
            node.signal(SIGTERM)
            #expect(await node.waitForExit() == 0, "log: \(node.log)")
            for file in [database, database + ".state"] {
                let check = try await ToolRun.capture("sqlite3", ["-cmd", ".timeout 5000", file, "pragma integrity_check"])
                #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(file): \(check.output)")
            }
            await client.client.disconnect()
        }

        func expectSuccess(_ client: ConnectedClient, _ prefix: String, _ command: String, _ fields: String, id: String)
            async throws {
            let payload = fields.isEmpty ? #"{"id":"\#(id)"}"# : #"{"id":"\#(id)",\#(fields)}"#
            try await client.client.publish("\(prefix)/cmd/\(command)", payload)
            let reply = try await client.reply(prefix: prefix, id: id, timeout: .seconds(20))
            #expect(reply["status"] == "success", "\(command): \(reply.jsonString)")
        }

        /// Whether the latest now playing says playing, within a few seconds (it follows the reply to play).
        func isPlaying(_ client: ConnectedClient, _ prefix: String) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if let latest = await client.client.latest(on: "\(prefix)/nowplaying"),
                   (try? JSONValue(parsing: latest.payload))?["state"] == "playing" {
                    return true
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// The newest `updatedAt` among saved positions, 0 when there is none.
        func latestSave(_ database: String) async throws -> Double {
            let (_, output) = try await ToolRun.capture("sqlite3", ["-cmd", ".timeout 5000", database, "select coalesce(max(updatedAt), 0) from playback_position"])
            return Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }

        /// Waits for a save newer than `time` and returns its time.
        func savedPosition(_ database: String, newerThan time: Double) async throws -> Double {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let latest = try await latestSave(database)
                if latest > time { return latest }
                try await Task.sleep(for: .milliseconds(200))
            }
            throw WaitTimeout("a saved position newer than \(time)")
        }
    }
}
