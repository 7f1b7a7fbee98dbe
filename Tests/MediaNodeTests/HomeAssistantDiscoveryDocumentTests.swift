import MediaJSON
import MediaNode
import Testing

@Suite("Home Assistant discovery ids and topics")
struct HomeAssistantDiscoveryDocumentTests {
    @Test("the discovery id replaces every character outside A-Za-z0-9_- with _, one per character")
    func objectID() {
        let discovery = HomeAssistantDiscovery(prefix: "homeassistant", nodeID: "car.1 rear/ü+#Z_9-x", topics: TopicLayout(prefix: "p"))
        #expect(discovery.objectID == "car_1_rear____Z_9-x")
        #expect(discovery.configTopic == "homeassistant/device/car_1_rear____Z_9-x/config")
    }

    @Test("every unique_id is <object-id>_<component> and every component names its platform")
    func uniqueIDs() throws {
        let discovery = HomeAssistantDiscovery(prefix: "ha/", nodeID: "car.1", topics: TopicLayout(prefix: "medianode/car.1"))
        #expect(discovery.configTopic == "ha/device/car_1/config")
        #expect(discovery.birthTopics == ["ha/status", "homeassistant/status"])
        let components = try #require(discovery.document["cmps"]?.objectValue)
        #expect(components.count == 14)
        for (name, component) in components {
            #expect(component["unique_id"] == .string("car_1_\(name)"))
            #expect(component["p"]?.stringValue != nil)
        }
    }

    @Test("a discovery topic is recognised under any prefix; tree topics and others are not")
    func configTopicShape() {
        #expect(HomeAssistantDiscovery.isConfigTopic("homeassistant/device/car1/config"))
        #expect(HomeAssistantDiscovery.isConfigTopic("a/b/device/x/config"))
        #expect(!HomeAssistantDiscovery.isConfigTopic("medianode/car1/content/tree/0/1"))
        #expect(!HomeAssistantDiscovery.isConfigTopic("device/x/config"))
        #expect(!HomeAssistantDiscovery.isConfigTopic("homeassistant/sensor/x/config"))
    }
}
