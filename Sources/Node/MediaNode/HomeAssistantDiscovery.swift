import MediaJSON

/// Home Assistant's MQTT device discovery for one node (`--homeassistant [PREFIX]`): one retained message
/// that makes the node a device with a sensor, button, select, number, switch, text or image per control.
///
/// Everything points at the contract's own topics, so the message depends only on the configuration and
/// never changes while the node runs: the artwork comes from the fixed `P/nowplaying/artwork` topic, and
/// whether the node can speak is known at start.
public struct HomeAssistantDiscovery: Sendable, Equatable {
    /// The discovery prefix (`homeassistant` unless the flag names another).
    public let prefix: String
    public let nodeID: String
    public let topics: TopicLayout
    /// Whether `announce` speaks `text` here (the `textToSpeech` capability): only then is there an
    /// Announce text entity.
    public let textToSpeech: Bool
    /// The `id` of the Announce entity's requests: a refusal of one is logged, since Home Assistant shows none.
    public static let announceRequestID = "homeassistant-announce"

    public static let defaultPrefix = "homeassistant"
    /// Where a Home Assistant user finds what the entities mean (Home Assistant shows it on the device).
    public static let supportURL = "https://github.com/medianode/medianode/blob/main/topics.md"

    public init(prefix: String, nodeID: String, topics: TopicLayout, textToSpeech: Bool = false) {
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        self.nodeID = nodeID
        self.topics = topics
        self.textToSpeech = textToSpeech
    }

    /// The node id with every character Home Assistant refuses in a discovery id replaced by `_`
    /// (it ignores a device whose id has a dot, for one).
    public var objectID: String {
        String(nodeID.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-")
            return allowed ? Character(scalar) : "_"
        })
    }

    /// `PREFIX/device/<object-id>/config`.
    public var configTopic: String { "\(prefix)/device/\(objectID)/config" }

    /// Where Home Assistant says it (re)started: its default birth topic, and the one under this prefix.
    public var birthTopics: [String] {
        Array(Set(["\(Self.defaultPrefix)/status", "\(prefix)/status"])).sorted()
    }

    /// Whether `topic` has the shape of a device discovery topic, under any prefix: the node clears one
    /// an earlier run published when this run publishes another, or none.
    public static func isConfigTopic(_ topic: String) -> Bool {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return levels.count >= 4 && levels[levels.count - 1] == "config" && levels[levels.count - 3] == "device"
    }

    /// The volume topic of contract 1.1 (built by the volume commands).
    var volumeTopic: String { topics.volume }

    /// The discovery payload.
    public var document: JSONValue {
        let id = objectID
        var components: [String: JSONValue] = [:]
        for (name, component) in self.components {
            guard case var .object(fields) = component else { continue }
            fields["unique_id"] = .string("\(id)_\(name)")
            // QoS is not one of the options a component inherits from the device, so each says it.
            fields["qos"] = 1
            components[name] = .object(fields)
        }
        return [
            "dev": [
                "identifiers": [.string("medianode_\(id)")],
                "name": .string(nodeID),
                "model": "MediaNode",
                "manufacturer": "MediaNode",
                "sw_version": .string(MediaNodeVersion.string),
            ],
            "o": [
                "name": "MediaNode",
                "sw_version": .string(MediaNodeVersion.string),
                "support_url": .string(Self.supportURL),
            ],
            "availability_topic": .string(topics.status),
            "payload_available": "online",
            "payload_not_available": "offline",
            "cmps": .object(components),
        ]
    }

    /// Each component without its ids, by the name its `unique_id` ends with.
    private var components: [(String, JSONValue)] {
        // `get` renders `None` for a key now playing lacks, which Home Assistant shows as unknown.
        func nowPlayingSensor(_ name: String, _ key: String, icon: String) -> JSONValue {
            ["p": "sensor", "name": .string(name), "state_topic": .string(topics.nowPlaying),
             "value_template": .string("{{ value_json.get('\(key)') }}"), "icon": .string(icon)]
        }
        func button(_ name: String, _ command: String, icon: String) -> JSONValue {
            ["p": "button", "name": .string(name), "command_topic": .string(topics.command(command)),
             "payload_press": "", "icon": .string(icon)]
        }
        func select(_ name: String, _ command: String, field: String, queueKey: String, options: [String],
                    icon: String) -> JSONValue {
            ["p": "select", "name": .string(name), "command_topic": .string(topics.command(command)),
             "command_template": .string("{\"\(field)\": \"{{ value }}\"}"),
             "state_topic": .string(topics.queue), "value_template": .string("{{ value_json.\(queueKey) }}"),
             "options": .array(options.map(JSONValue.string)), "icon": .string(icon)]
        }
        var components: [(String, JSONValue)] = [
            ("state", [
                "p": "sensor", "name": "State", "state_topic": .string(topics.nowPlaying),
                "value_template": "{{ value_json.state }}", "device_class": "enum",
                "options": ["playing", "paused", "stopped", "interrupted"], "icon": "mdi:play-pause",
            ]),
            ("title", nowPlayingSensor("Title", "title", icon: "mdi:music-note")),
            ("artist", nowPlayingSensor("Artist", "artist", icon: "mdi:account-music")),
            ("album", nowPlayingSensor("Album", "albumTitle", icon: "mdi:album")),
            ("chapter", nowPlayingSensor("Chapter", "chapterTitle", icon: "mdi:book-open-page-variant")),
            ("artwork", [
                "p": "image", "name": "Artwork", "image_topic": .string(topics.nowPlayingArtwork),
                "content_type": "image/jpeg",
            ]),
            ("play", button("Play", "play", icon: "mdi:play")),
            ("pause", button("Pause", "pause", icon: "mdi:pause")),
            ("next", button("Next", "nextTrack", icon: "mdi:skip-next")),
            ("previous", button("Previous", "previousTrack", icon: "mdi:skip-previous")),
            ("stop", button("Stop", "stop", icon: "mdi:stop")),
            ("repeat", select("Repeat", "changeRepeatMode", field: "repeatType", queueKey: "repeatMode",
                              options: ["off", "one", "all"], icon: "mdi:repeat")),
            ("shuffle", select("Shuffle", "changeShuffleMode", field: "shuffleType", queueKey: "shuffleMode",
                               options: ["off", "items", "collections"], icon: "mdi:shuffle")),
            ("volume", [
                "p": "number", "name": "Volume", "command_topic": .string(topics.command("changeVolume")),
                "command_template": "{\"volume\": {{ value }}}", "state_topic": .string(volumeTopic),
                "value_template": "{{ value_json.volume }}", "min": 0, "max": 1, "step": 0.05, "mode": "slider",
                "icon": "mdi:volume-high",
            ]),
            ("mute", [
                "p": "switch", "name": "Mute", "command_topic": .string(topics.command("mute")),
                "payload_on": "{\"isMuted\": true}", "payload_off": "{\"isMuted\": false}",
                "state_topic": .string(volumeTopic),
                "value_template": "{{ 'ON' if value_json.isMuted else 'OFF' }}", "state_on": "ON", "state_off": "OFF",
                "icon": "mdi:volume-off",
            ]),
        ]
        if textToSpeech {
            // What the person types is spoken: the template makes it `announce`'s `text`, escaped as JSON,
            // with an id that tells the node the request came from here (Home Assistant shows no reply).
            // No state topic: Home Assistant shows the last text sent. At most 255 characters, the longest
            // state Home Assistant keeps (the node takes up to 1,000).
            components.append(("announce", [
                "p": "text", "name": "Announce", "command_topic": .string(topics.command("announce")),
                "command_template": .string(#"{"id": "\#(Self.announceRequestID)", "text": {{ value | to_json }}}"#),
                "min": 1, "max": 255, "mode": "text",
                "icon": "mdi:bullhorn",
            ]))
        }
        return components
    }
}
