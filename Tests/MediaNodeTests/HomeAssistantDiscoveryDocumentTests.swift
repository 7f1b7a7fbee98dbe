import MediaJSON
import MediaNode
import RemoteCommands
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
        #expect(components.count == 15)
        // The chapter (version 1.3): the title now playing gives, unknown for an item without chapters.
        #expect(components["chapter"]?["value_template"] == "{{ value_json.get('chapterTitle') }}")
        for (name, component) in components {
            #expect(component["unique_id"] == .string("car_1_\(name)"))
            #expect(component["p"]?.stringValue != nil)
        }
    }

    @Test("a node that can speak has a 16th entity, the Announce text, whose value goes to announce as its text")
    func announceText() throws {
        let topics = TopicLayout(prefix: "medianode/car1")
        let silent = HomeAssistantDiscovery(prefix: "homeassistant", nodeID: "car1", topics: topics, textToSpeech: false)
        #expect(silent.document["cmps"]?["announce"] == nil)
        let speaking = HomeAssistantDiscovery(prefix: "homeassistant", nodeID: "car1", topics: topics, textToSpeech: true)
        let components = try #require(speaking.document["cmps"]?.objectValue)
        #expect(components.count == 16)
        let text = try #require(components["announce"])
        #expect(text["p"] == "text")
        #expect(text["command_topic"] == "medianode/car1/cmd/announce")
        #expect(text["command_template"] == #"{"id": "homeassistant-announce", "text": {{ value | to_json }}}"#)
        // Home Assistant keeps states of at most 255 characters, and the node refuses empty text.
        #expect(text["min"] == 1 && text["max"] == 255)
    }

    @Test("every command topic of the discovery is a command of the command table")
    func commandTopicsAreCommands() throws {
        let topics = TopicLayout(prefix: "medianode/car1")
        let discovery = HomeAssistantDiscovery(prefix: "homeassistant", nodeID: "car1", topics: topics, textToSpeech: true)
        let components = try #require(discovery.document["cmps"]?.objectValue)
        let commandTopics = components.values.compactMap { $0["command_topic"]?.stringValue }
        #expect(commandTopics.count == 10)
        for topic in commandTopics {
            let name = try #require(topics.commandName(in: topic), "\(topic) is not a command topic")
            #expect(CommandTable.names.contains(name), "\(topic) names no command")
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
