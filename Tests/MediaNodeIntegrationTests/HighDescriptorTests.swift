import Foundation
import MQTTTransport
import MediaNodeTesting
import Testing

/// A process with a thousand nodes (the fleet rig) holds MQTT sockets numbered past 1024, which
/// libmosquitto's select()-based loop refuses to watch.
@Suite("MQTT connections on descriptors numbered past 1024", .serialized)
struct HighDescriptorTests {
    @Test("with 1,100 descriptors in use, clients connect, a publish from another thread goes out at once, messages arrive, shutdown ends")
    func clientsPastTheSelectLimit() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 2048 {
            limit.rlim_cur = min(limit.rlim_max, 2048)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= 1200, "needs `ulimit -n` of at least 1200, have \(limit.rlim_cur)")
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        // open() takes the lowest free number, so once these hold every number up to 1100 the clients'
        // sockets (and libmosquitto's wake-up pairs) are numbered above it. Close-on-exec, so that no
        // process started meanwhile inherits a thousand files.
        var fillers: [Int32] = []
        defer { for descriptor in fillers { close(descriptor) } }
        while fillers.last.map({ $0 < 1100 }) ?? true {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0, "cannot open /dev/null: errno \(errno)")
            fillers.append(descriptor)
        }

        let sender = try TestMQTTClient(brokerURL: broker.url)
        let receiver = try TestMQTTClient(brokerURL: broker.url)
        try await sender.connect()
        try await receiver.connect()
        try await receiver.subscribeAndSettle("high/out/#")
        try await sender.subscribeAndSettle("high/in")

        // The network thread waits up to a second for traffic; a publish from here goes out sooner only
        // if the loop is woken for it.
        var roundTrips: [Duration] = []
        for index in 0..<10 {
            let started = ContinuousClock.now
            try await sender.publish("high/out/\(index)", "message \(index)")
            let message = try await receiver.first(timeout: .seconds(5)) { $0.topic == "high/out/\(index)" }
            roundTrips.append(ContinuousClock.now - started)
            #expect(String(decoding: message.payload, as: UTF8.self) == "message \(index)")
        }
        let median = roundTrips.sorted()[roundTrips.count / 2]
        #expect(median < .milliseconds(500), "round trips \(roundTrips)")

        try await receiver.publish("high/in", "back")
        let back = try await sender.first(timeout: .seconds(5)) { $0.topic == "high/in" }
        #expect(String(decoding: back.payload, as: UTF8.self) == "back")

        await sender.disconnect()
        await receiver.disconnect()
    }
}
