import MQTTTransport
import MediaNode
import Testing

/// Which broker a node tries, and what its id may be: pure rules, no broker.
@Suite("Broker order and node ids")
struct BrokerChoiceTests {
    @Test("the first broker down: the second is tried at once; every broker failing in turn backs off by rounds")
    func rotationOnFailures() {
        var rotation = BrokerRotation(count: 3)
        #expect(rotation.current == 0)
        #expect(rotation.failed() == .tryNow && rotation.current == 1)
        #expect(rotation.failed() == .tryNow && rotation.current == 2)
        #expect(rotation.failed() == .wait(round: 1) && rotation.current == 0)
        #expect(rotation.failed() == .tryNow && rotation.current == 1)
    }

    @Test("a lost connection moves to the next broker at once and wraps; fail-back returns to the first")
    func rotationOnLoss() {
        var rotation = BrokerRotation(count: 2)
        #expect(rotation.lost() == .tryNow && rotation.current == 1 && !rotation.isOnFirst)
        #expect(rotation.failed() == .tryNow && rotation.current == 0)
        #expect(rotation.failed() == .wait(round: 1) && rotation.current == 1)
        rotation.failBack()
        #expect(rotation.isOnFirst)
        // The failures before fail-back are forgotten: one more is not a whole round.
        #expect(rotation.failed() == .tryNow)
    }

    @Test("a single broker is retried after a back-off, growing with each failure")
    func singleBroker() {
        var rotation = BrokerRotation(count: 1)
        #expect(rotation.lost() == .wait(round: 1))
        #expect(rotation.failed() == .wait(round: 1))
        #expect(rotation.failed() == .wait(round: 2))
        #expect(rotation.current == 0)
    }

    @Test("node ids hold letters, digits, _ and -; a host name's other characters become _")
    func nodeIDs() {
        for valid in ["car1", "Car_1-b", "x"] { #expect(NodeConfiguration.isValidNodeID(valid), "\(valid)") }
        for invalid in ["car.1", "car 1", "car/1", "car+1", "", "wagen-ä"] {
            #expect(!NodeConfiguration.isValidNodeID(invalid), "\(invalid)")
        }
        #expect(NodeConfiguration.nodeID(fromHostName: "car1.example.net") == "car1_example_net")
        #expect(NodeConfiguration.nodeID(fromHostName: "head-unit") == "head-unit")
        #expect(NodeConfiguration.isValidNodeID(NodeConfiguration.nodeID(fromHostName: "bus#7 (rear)")))
    }

    @Test("the client id is the node's on every broker, and the command subscription comes with each connection")
    func clientSettings() throws {
        let configuration = NodeConfiguration(
            broker: try BrokerURL(parsing: "mqtt://a:1883"), fallbackBrokers: [try BrokerURL(parsing: "mqtt://b:1884")],
            nodeID: "car1", databasePath: ":memory:")
        let mqtt = configuration.mqttConfiguration
        #expect(mqtt.brokers.map(\.host) == ["a", "b"])
        #expect(mqtt.clientID == "medianode-car1")
        #expect(mqtt.subscriptions == ["medianode/car1/cmd/+": 1, "medianode/car1/context": 1])
        #expect(mqtt.will?.topic == "medianode/car1/status")
        #expect(mqtt.failbackInterval == .seconds(30))
    }
}
