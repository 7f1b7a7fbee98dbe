import ArgumentParser
import CatalogStore
import Foundation
import Logging
import MQTTTransport
import MediaNode
import NodeMetrics

/// `medianode-rig`: N full nodes in one process, each on its own MQTT connection with a simulated audio
/// output and a small generated catalog, driven through the brokers at R commands a second per node.
@main
struct MedianodeRig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medianode-rig",
        abstract: "Run N MediaNode nodes in one process and drive them through the brokers, checking every reply.")

    @Option(help: "Broker URL (mqtt://host:port); repeatable: nodes are spread over them, each failing over to the others.")
    var broker: [String] = []
    @Option(help: "Number of nodes.") var nodes = 10
    @Option(help: "Seconds of commands, once every node is online.") var duration = 10.0
    @Option(help: "Commands per second sent to each node.") var rate = 1.0
    @Option(help: "Seconds at the start of --duration whose commands are sent and checked but left out of the reply and lag figures (each node's first commands prepare its SQL statements and fill its caches).")
    var warmup = 0.0
    @Option(help: "Topic prefix: node topics are under <prefix>/<node-id>.") var prefix = "rig"
    @Option(help: "Write the report as JSON to this file.") var json: String?
    @Option(name: .customLong("mqtt-version"), help: "5 or 3.1.1.") var mqttVersion = "5"
    @Option(name: .customLong("log-level"), help: "The nodes' log level.") var logLevel = "warning"
    @Option(name: .customLong("metrics-interval"),
            help: "Seconds between each node's P/metrics (0: none); the report then names stale nodes and sums the fleet's counters.")
    var metricsInterval = 0.0
    @Option(name: .customLong("loop-threads"),
            help: "Threads that serve the nodes' MQTT connections (libmosquitto's external loop on epoll); 0: a thread per node, as a daemon has.")
    var loopThreads = 2
    @Option(help: "Where each node keeps its catalog and state: file (a copy of one file each, as a daemon), memory (a copy in memory each: no open files, for fleets larger than the limit of open files allows), or auto (file while the limit allows it).")
    var catalogs = "auto"

    func validate() throws {
        guard nodes > 0 else { throw ValidationError("--nodes must be positive") }
        guard duration > 0 else { throw ValidationError("--duration must be positive") }
        guard warmup >= 0, warmup < duration else { throw ValidationError("--warmup must be 0 or more and below --duration") }
        guard metricsInterval >= 0 else { throw ValidationError("--metrics-interval must be 0 or more") }
        guard catalogs == "auto" || Fleet.Storage(rawValue: catalogs) != nil else {
            throw ValidationError("--catalogs must be file, memory or auto, not '\(catalogs)'")
        }
        guard loopThreads >= 0, loopThreads <= 64 else { throw ValidationError("--loop-threads must be 0 to 64") }
        guard rate > 0, rate <= 50 else { throw ValidationError("--rate must be above 0 and at most 50") }
        guard !prefix.isEmpty, !prefix.contains(where: { "+#".contains($0) }), !prefix.hasSuffix("/") else {
            throw ValidationError("--prefix '\(prefix)' is not a topic prefix")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        guard let version = MQTTProtocolVersion(rawValue: mqttVersion == "3" ? "3.1.1" : mqttVersion) else {
            throw ValidationError("--mqtt-version must be 5 or 3.1.1, not '\(mqttVersion)'")
        }
        var brokers: [BrokerURL] = []
        for text in broker.isEmpty ? ["mqtt://127.0.0.1:1883"] : broker {
            do { brokers.append(try BrokerURL(parsing: text)) } catch { throw ValidationError(error.description) }
        }
        let descriptors = raiseDescriptorLimit(wanted: UInt64(nodes) * Fleet.Storage.file.descriptorsPerNode + 1024)
        let storage = Fleet.Storage(rawValue: catalogs)
            ?? (descriptors >= UInt64(nodes) * Fleet.Storage.file.descriptorsPerNode + 256 ? .file : .memory)
        if descriptors < UInt64(nodes) * storage.descriptorsPerNode + 256 {
            print("warning: \(descriptors) file descriptors may be too few for \(nodes) nodes with --catalogs \(storage.rawValue) (ulimit -n)")
        } else if catalogs == "auto", storage == .memory {
            print("catalogs in memory: \(nodes) nodes with a file each need about \(UInt64(nodes) * Fleet.Storage.file.descriptorsPerNode) open files; this process may open \(descriptors)")
        }

        let clock = ContinuousClock()
        let began = clock.now
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("medianode-rig-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = RigCatalog()
        let template = directory.appendingPathComponent("template.sqlite").path
        try await catalog.writeTemplate(at: template)
        // The node state file too, made once and copied as the catalog is: a new one costs eight fdatasyncs
        // (setting its journal mode), which held a 1,000-node start at about 30 nodes a second.
        try NodeStateFile(path: NodeStateFile.path(besideCatalog: template)).close()

        let width = max(4, String(nodes).count)
        let nodeIDs = (1...nodes).map { "node-" + String(repeating: "0", count: width - String($0).count) + String($0) }
        let driver = try Driver(prefix: prefix, nodeIDs: nodeIDs, brokers: brokers, protocolVersion: version)
        driver.start()
        // The driver listens before any node starts, so it sees every `online` as it is said.
        let driverDeadline = clock.now + .seconds(10)
        while !driver.clients.allSatisfy(\.isConnected) {
            guard clock.now < driverDeadline else {
                await driver.shutdown()
                throw ValidationError("cannot reach the broker(s) \(brokers.map(\.description).joined(separator: ", "))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }

        let progress = Progress(driver: driver, nodes: nodes, metricsInterval: metricsInterval > 0 ? metricsInterval : nil)
        let eventLoop = loopThreads > 0 ? try MQTTEventLoop(threads: loopThreads) : nil
        let fleet = try await Fleet.start(eventLoop: eventLoop,
            nodeIDs: nodeIDs, prefix: prefix, brokers: brokers, protocolVersion: version, template: template,
            storage: storage, directory: directory, lengths: catalog.lengths,
            metricsInterval: metricsInterval > 0 ? .milliseconds(Int(metricsInterval * 1000)) : nil
        ) { phase, done in
            progress.tick(phase: phase, detail: "\(done)/\(nodes)")
        }
        let startLimit = clock.now + .seconds(max(30, Double(nodes) * 0.1))
        while driver.onlineCount < nodes, clock.now < startLimit {
            try await Task.sleep(for: .milliseconds(20))
            progress.tick(phase: "starting")
        }
        let startSeconds = (clock.now - began).seconds

        let load = Load(driver: driver, playables: catalog.playables, stats: progress.stats)
        let end = clock.now + .seconds(duration)
        let measuredFrom = clock.now + .seconds(warmup)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                progress.tick(phase: "driving", remaining: max(0, (end - clock.now).seconds))
            }
        }
        let (count, perSecond) = (nodes, rate)
        await withTaskGroup(of: Void.self) { group in
            for (index, node) in nodeIDs.enumerated() {
                group.addTask {
                    await load.drive(node: node, index: index, count: count, rate: perSecond, until: end, measuredFrom: measuredFrom)
                }
            }
        }
        ticker.cancel()
        progress.finish()

        let usage = ProcessUsage.now()
        var report = RigReport(
            nodes: nodes, online: driver.saidOnlineCount, stats: progress.stats.snapshot(), startSeconds: startSeconds,
            usage: usage, brokers: brokers.count, duration: duration, rate: rate, storage: storage.rawValue, warmup: warmup,
            memory: MemoryUse.measure(fleet))
        if metricsInterval > 0 {
            report.health = FleetHealth(
                latest: driver.latestMetrics, interval: metricsInterval, now: Date(),
                since: Date(timeIntervalSinceNow: -(clock.now - began).seconds))
        }
        print(report.text)
        if let json {
            try Data(report.json.jsonBytes).write(to: URL(fileURLWithPath: json))
        }
        // The report is out: a node stuck in its shutdown (a broker gone) must not keep the rig from ending.
        let passed = report.passed
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            print("warning: the nodes took over 20 s to shut down; exiting without them")
            Foundation.exit(passed ? 0 : 1)
        }
        await fleet.shutdown()
        eventLoop?.shutdown()
        await driver.shutdown()
        watchdog.cancel()
        if !passed { throw ExitCode(1) }
    }

    /// Raises the limit of open files to `wanted` where the process may raise the hard limit too (as root),
    /// else the soft limit to the hard one; returns the limit in force.
    func raiseDescriptorLimit(wanted: UInt64) -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_max < wanted {
            var raised = limit
            (raised.rlim_cur, raised.rlim_max) = (rlim_t(wanted), rlim_t(wanted))
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return wanted }
        }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return UInt64(limit.rlim_cur)
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
