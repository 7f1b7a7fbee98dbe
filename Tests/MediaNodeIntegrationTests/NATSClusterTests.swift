import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

/// The node on a real clustered broker: deploy/cluster's three NATS servers, MQTT 3.1.1 on each.
///
/// Killing a member stalls the cluster while its JetStream streams elect new leaders (nats-server 2.9: a
/// 4-9 s election timeout; 5-9 s of stalled traffic measured here, and a node that was on the dead member
/// back 5-17 s after the kill on a loaded two-core machine). The deadlines below are sized for that; what
/// must hold whatever the timing is that nothing is lost for a client that sends again after 5 s, that no
/// command is answered twice, and that a node that moved is found `online` by a client that subscribes
/// afresh.
@Suite("Nodes on a 3-member NATS cluster survive losing a member", .serialized)
struct NATSClusterTests {
    /// deploy/cluster/nats-cluster.sh, from the package root the tests run in.
    static let script = "deploy/cluster/nats-cluster.sh"
    /// The ports the script takes above the first MQTT port: MQTT, NATS clients, routes, HTTP monitoring.
    static let portOffsets = [0, 1, 2, 101, 102, 103, 201, 202, 203, 301, 302, 303]

    /// Starts the cluster on free ports and returns the members' MQTT URLs once the script says all three
    /// accept sessions and report JetStream healthy.
    ///
    /// The ports are picked below Linux's ephemeral range (32768 and up), where an outgoing connection of
    /// any other process could take one between the check and the server's bind. The script's output goes
    /// to a file, read until it names the three members: the servers it leaves running must not hold a
    /// pipe of this process open.
    static func startCluster(in directory: URL) async throws -> [String] {
        var failures: [String] = []
        for _ in 0..<5 {
            let first = Int.random(in: 20_000..<32_000)
            guard portOffsets.allSatisfy({ MosquittoBroker.isFree(port: first + $0) }) else { continue }
            let output = directory.appendingPathComponent("start.log")
            FileManager.default.createFile(atPath: output.path, contents: nil)
            let script = Process()
            script.executableURL = URL(fileURLWithPath: "/bin/bash")
            script.arguments = [Self.script, "start", directory.path, String(first)]
            let handle = try FileHandle(forWritingTo: output)
            script.standardOutput = handle
            script.standardError = handle
            script.standardInput = FileHandle.nullDevice
            try script.run()
            let deadline = ContinuousClock.now + .seconds(90)
            while ContinuousClock.now < deadline {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                let members = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("mqtt://") }
                if members.count == 3 { return members }
                if !script.isRunning && script.terminationStatus != 0 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            // A port taken after all, or a start too slow: try again on other ports.
            failures.append((try? String(contentsOf: output, encoding: .utf8)) ?? "")
            if script.isRunning { script.terminate() }
            stopCluster(in: directory)
            try await Task.sleep(for: .milliseconds(500))
        }
        throw RigSetupError("the NATS cluster did not start: \(failures.joined(separator: "\n---\n"))")
    }

    /// Signals the members the script started in `directory`, by the pid files it wrote.
    static func signal(member: Int, in directory: URL, _ signal: Int32) {
        let pidFile = directory.appendingPathComponent("m\(member)/pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, signal)
    }

    static func stopCluster(in directory: URL) {
        for member in 1...3 { signal(member: member, in: directory, SIGTERM) }
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// What `body` returns; a failure names `what`, so a timeout says which wait it was.
    static func waiting<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw WaitTimeout("\(what) (\(error))")
        }
    }

    /// The nodes' `--metrics-interval` in the cluster test, in seconds.
    static let metricsInterval = 2.0

    @Test("9 nodes over three members: a client on one member sees every node; a member dies, its nodes move, nothing is lost")
    func failover() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let members = try await Self.startCluster(in: directory)
        defer { Self.stopCluster(in: directory) }
        #expect(members.count == 3, "\(members)")

        // A dashboard on the third member; nodes 1, 4 and 7 prefer the first member, 2, 5, 8 the second.
        let watcher = try TestMQTTClient(brokerURL: members[2], version: .v311)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("cluster/+/status")
        try await watcher.subscribeAndSettle("cluster/+/result")
        try await watcher.subscribeAndSettle("cluster/+/metrics")

        // A daemon on the first member only, reporting its health every 2 s: it dies with the member, so no
        // member may be left to send its last will, and only its silence on P/metrics tells it is gone.
        let lost = try NodeProcess(arguments: [
            "--mqtt-version", "3.1.1", "--broker", members[0], "--node-id", "lost", "--prefix", "cluster/lost",
            "--audio-sink", "fake", "--metrics-interval", "\(Int(Self.metricsInterval))",
            "--database", directory.appendingPathComponent("lost.sqlite").path,
        ])
        defer { lost.signal(SIGKILL) }

        let json = directory.appendingPathComponent("report.json")
        let rig = Process()
        rig.executableURL = URL(fileURLWithPath: FleetRigTests.rigPath)
        // The rig's nodes report every 10 s, the dead daemon every 2 s: the rig judges each by its own
        // interval, and the cluster carries less retained traffic while it moves the nodes.
        rig.arguments = ["--mqtt-version", "3.1.1", "--nodes", "9", "--duration", "40", "--prefix", "cluster", "--json", json.path,
                         "--metrics-interval", "10"]
            + members.flatMap { ["--broker", $0] }
        let log = directory.appendingPathComponent("rig.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        rig.standardOutput = output
        rig.standardError = output
        try rig.run()
        defer { if rig.isRunning { rig.terminate() } }
        func rigOutput() -> String { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(6000).description }

        let nodeIDs = (1...9).map { "node-000\($0)" }
        @Sendable func online(_ node: String) async -> Bool {
            await watcher.latest(on: "cluster/\(node)/status").map { $0.payload.elementsEqual("online".utf8) } ?? false
        }
        // Every node's retained status reaches the third member, wherever the node is connected.
        try await withTimeout(.seconds(60), "every node online, seen on the third member") {
            while true {
                var all = true
                for node in nodeIDs + ["lost"] where await !online(node) { all = false }
                if all { return }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        // The rig's commands flow for a while before the crash.
        try await Task.sleep(for: .seconds(6))
        let moving = ["node-0001", "node-0004", "node-0007"]
        @Sendable func onlineCount(_ node: String) async -> Int {
            await watcher.messages(on: "cluster/\(node)/status").count { $0.payload.elementsEqual("online".utf8) }
        }
        var before: [String: Int] = [:]
        for node in moving { before[node] = await onlineCount(node) }
        let counted = before
        // A crash, not a shutdown: the member says nothing to its clients or to the other members.
        let killedAt = ContinuousClock.now
        Self.signal(member: 1, in: directory, SIGKILL)
        lost.signal(SIGKILL)
        // The rig's progress line names the stale nodes every 5 s: the dead daemon must be among them within
        // three intervals of its last P/metrics, plus a line's period and the timestamps' second.
        let staleSeen = Task { () -> Duration? in
            while ContinuousClock.now - killedAt < .seconds(60) {
                if rigOutput().split(separator: "\n").contains(where: { $0.contains("stale") && $0.contains("lost") }) {
                    return ContinuousClock.now - killedAt
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
            return nil
        }
        // The first member's nodes connect to another member and say online again there, and the third
        // member passes it on, once the streams have new leaders.
        try await withTimeout(.seconds(60), "nodes 1, 4 and 7 online again after the first member died") {
            while true {
                var back = true
                for node in moving where await onlineCount(node) <= counted[node]! { back = false }
                if back { return }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let movedIn = ContinuousClock.now - killedAt
        let staleAfter = await staleSeen.value
        #expect(staleAfter.map { $0 < .seconds(3 * Self.metricsInterval + 5 + 3) } ?? false,
                "the rig named the dead node stale \(staleAfter.map { "\($0)" } ?? "never") after the kill\n\(rigOutput())")

        // Every node answers: one command to each from the third member, sent again after 5 s without a
        // reply, as topics.md asks of a client. Not only the dead member's nodes move: while the cluster elects
        // leaders, a member closes any MQTT connection whose JetStream request times out, so another node may
        // be between members now too, and a command sent then is lost (seen: node-0005, moved from the
        // second member to the third after the kill, had not said online again yet).
        let sentAt = ContinuousClock.now
        var copies: [String: Int] = [:]
        func send(to node: String) async throws {
            try await watcher.publish("cluster/\(node)/cmd/browse", #"{"id":"after-\#(node)","indexPath":[0]}"#)
            copies[node, default: 0] += 1
        }
        for node in nodeIDs { try await send(to: node) }
        var slowest: Duration = .zero
        for node in nodeIDs {
            let id = "after-\(node)"
            var reply: MQTTMessage?
            while reply == nil {
                reply = try? await watcher.first(timeout: .seconds(5)) {
                    $0.topic == "cluster/\(node)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
                }
                guard reply == nil, copies[node, default: 0] < 4 else { break }
                try await send(to: node)
            }
            let answer = try #require(reply, "\(node) answered none of \(copies[node] ?? 0) copies of the command sent after the move")
            slowest = max(slowest, ContinuousClock.now - sentAt)
            #expect((try? JSONValue(parsing: answer.payload))?["status"] == "success", "\(Self.text(answer.payload))")
        }
        // Retained state seen from both members left, by clients that subscribe afresh.
        for member in members.dropFirst() {
            let late = try TestMQTTClient(brokerURL: member, version: .v311)
            try await late.connect(timeout: .seconds(20))
            try await late.subscribe("cluster/+/status")
            for node in nodeIDs {
                let status = try await Self.waiting("the retained status of \(node) on \(member), for a new subscriber") {
                    try await late.first(timeout: .seconds(20)) { $0.topic == "cluster/\(node)/status" }
                }
                #expect(Self.text(status.payload) == "online", "\(node) on \(member)")
            }
            await late.disconnect()
        }

        try await withTimeout(.seconds(120), "the rig's end") {
            while rig.isRunning { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(rig.terminationStatus == 0, "\(rigOutput())")
        let report = try FleetRigTests.report(at: json)
        #expect(report["online"] == 9 && report["lost"] == 0 && report["wrongState"] == 0, "\(report.jsonString)\n\(rigOutput())")
        #expect(report["answered"] == report["sent"] && (report["sent"]?.numberValue ?? 0) >= 9 * 30, "\(report.jsonString)")
        // At the end every node of the rig reports again, and only the dead daemon is stale, whatever its
        // retained status says.
        let health = report["metrics"]
        #expect(health?["staleNodes"] == ["lost"] && health?["reporting"] == 10, "\(health?.jsonString ?? "no metrics")")
        let afterwards = try TestMQTTClient(brokerURL: members[2], version: .v311)
        try await afterwards.connect(timeout: .seconds(20))
        try await afterwards.subscribe("cluster/lost/status")
        let lostStatus = try? await afterwards.first(timeout: .seconds(10)) { $0.topic == "cluster/lost/status" }
        await afterwards.disconnect()
        for node in nodeIDs {
            let answers = await watcher.messages(on: "cluster/\(node)/result")
                .count { (try? JSONValue(parsing: $0.payload))?["id"] == .string("after-\(node)") }
            // Each copy that reached the node is answered once, and no copy twice.
            #expect((1...(copies[node] ?? 1)).contains(answers),
                    "\(node) answered the command sent after the move \(answers) times, sent \(copies[node] ?? 0) times")
        }
        let resent = copies.values.reduce(0, +) - nodeIDs.count
        print("NATS cluster: the dead member's nodes online again \(movedIn) after the kill; a command to each of 9 nodes then answered within \(slowest) (\(resent) sent again); rig resent \(report["resent"]?.jsonString ?? "?"); the dead daemon named stale \(staleAfter.map { "\($0)" } ?? "never") after the kill, its retained status then '\(lostStatus.map { Self.text($0.payload) } ?? "none")'")
        await watcher.disconnect()
    }
}
