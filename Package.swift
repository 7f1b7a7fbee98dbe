// swift-tools-version:6.1
import PackageDescription

/// One settings list for every Swift target: Swift 6 language mode everywhere.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "MediaNode",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "medianode", targets: ["medianode"]),
        .executable(name: "medianode-bench", targets: ["medianode-bench"]),
        .executable(name: "medianode-rig", targets: ["medianode-rig"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
    ],
    targets: [
        // MARK: - C libraries at the edge
        .systemLibrary(
            name: "CMosquitto",
            path: "Sources/Transport/CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CGStreamer",
            path: "Sources/Audio/CGStreamer",
            pkgConfig: "gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        /// libebur128: EBU R128 integrated loudness of the items without loudness tags.
        .systemLibrary(
            name: "CEBUR128",
            path: "Sources/Audio/CEBUR128",
            pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]
        ),
        .systemLibrary(
            name: "CTagLib",
            path: "Sources/TestKit/CTagLib",
            pkgConfig: "taglib_c",
            providers: [.apt(["libtagc0-dev"])]
        ),

        /// TagLib's C++ API behind a small C interface: reads one file without the C API's global state, so
        /// a scan can read files on every core, and gives lengths in milliseconds and disc numbers.
        .target(
            name: "CTagLibReader",
            path: "Sources/Catalog/CTagLibReader",
            linkerSettings: [.linkedLibrary("tag")]
        ),

        /// glibc's mallopt, which Swift's Glibc module does not export.
        .systemLibrary(name: "CMalloc", path: "Sources/Tools/CMalloc"),

        /// GLib itself, for its checksums (GStreamer and gdk-pixbuf load it anyway).
        .systemLibrary(
            name: "CGLib",
            path: "Sources/Catalog/CGLib",
            pkgConfig: "glib-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),

        .systemLibrary(
            name: "CGdkPixbuf",
            path: "Sources/Catalog/CGdkPixbuf",
            pkgConfig: "gdk-pixbuf-2.0",
            providers: [.apt(["libgdk-pixbuf-2.0-dev"])]
        ),

        /// libcurl, for catalog and artwork downloads (FoundationNetworking loaded it before; now it is used
        /// directly, for its back-pressure and size cap).
        .systemLibrary(
            name: "CCurl",
            path: "Sources/Transport/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        /// GLib's GIO, for GDBus: the MPRIS front door on the session or system bus.
        .systemLibrary(
            name: "CGIO",
            path: "Sources/Transport/CGIO",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),

        /// mosquitto_new without the wake-up socket pair that only libmosquitto's own loop reads.
        .target(
            name: "CMosquittoWakeUp",
            dependencies: ["CMosquitto"],
            path: "Sources/Transport/CMosquittoWakeUp",
            linkerSettings: [.linkedLibrary("dl")]
        ),

        // MARK: - Transport
        .target(
            name: "MQTTTransport",
            dependencies: [
                "CMosquitto", "CMosquittoWakeUp", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Transport/MQTTTransport",
            swiftSettings: swiftSettings
        ),

        /// D-Bus through GDBus: values, a GLib main loop on a thread of its own, and an object kept on a bus
        /// under a well-known name across bus restarts.
        .target(
            name: "DBusBinding",
            dependencies: ["CGIO", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Transport/DBusBinding",
            swiftSettings: swiftSettings
        ),

        // MARK: - Core (plain Swift, no MQTT, SQL or GStreamer)
        /// The JSON every topic carries: a value type, a strict parser and a deterministic writer.
        .target(name: "MediaJSON", path: "Sources/Core/MediaJSON", swiftSettings: swiftSettings),
        .target(name: "RemoteCommands", dependencies: ["MediaJSON"],
                path: "Sources/Core/RemoteCommands", swiftSettings: swiftSettings),
        .target(name: "Playback", path: "Sources/Core/Playback", swiftSettings: swiftSettings),
        .target(name: "NowPlaying", dependencies: ["Playback", "MediaJSON"],
                path: "Sources/Core/NowPlaying", swiftSettings: swiftSettings),
        .target(name: "ContentTree", dependencies: ["MediaJSON"],
                path: "Sources/Core/ContentTree", swiftSettings: swiftSettings),

        // MARK: - Edges: storage and audio
        /// HTTP GETs on libcurl with back-pressure, a byte cap, stall and total timeouts, file downloads with
        /// resume, progress and cancellation.
        .target(name: "HTTPTransfer", dependencies: ["CCurl"],
                path: "Sources/Transport/HTTPTransfer", swiftSettings: swiftSettings),
        .target(
            name: "CatalogStore",
            dependencies: [
                "ContentTree", "CTagLibReader", "CGLib", "Artwork", "HTTPTransfer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Catalog/CatalogStore",
            swiftSettings: swiftSettings
        ),
        /// Local copies of remote audio for offline listening; their rows are kept in the catalog file.
        .target(
            name: "Downloads",
            dependencies: [
                "CatalogStore", "ContentTree", "HTTPTransfer", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Catalog/Downloads",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GStreamerAudio",
            dependencies: ["CGStreamer", "CEBUR128", "Playback", .product(name: "Logging", package: "swift-log")],
            path: "Sources/Audio/GStreamerAudio",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "Announcements",
            dependencies: [
                "Playback", "RemoteCommands", "MediaJSON", "HTTPTransfer", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Core/Announcements",
            swiftSettings: swiftSettings),
        .target(name: "Artwork", dependencies: ["CGdkPixbuf"],
                path: "Sources/Catalog/Artwork", swiftSettings: swiftSettings),

        /// The node's health figures: a swift-metrics backend of its own per node (a rig runs a thousand in
        /// one process), rendered as `P/metrics` JSON and, through swift-prometheus, as Prometheus text.
        .target(
            name: "NodeMetrics",
            dependencies: [
                "MediaJSON",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/Node/NodeMetrics",
            swiftSettings: swiftSettings
        ),

        /// The node as an MPRIS 2.2 media player on D-Bus: the members and what each is in the node (one map),
        /// the player object and its service.
        .target(
            name: "MPRIS",
            dependencies: [
                "DBusBinding", "MediaJSON", "RemoteCommands", "Playback",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Node/MPRIS",
            swiftSettings: swiftSettings
        ),

        // MARK: - The node that wires them
        .target(
            name: "MediaNode",
            dependencies: [
                "MQTTTransport", "MediaJSON", "RemoteCommands", "Playback", "NowPlaying", "ContentTree",
                "CatalogStore", "Downloads", "GStreamerAudio", "Artwork", "NodeMetrics", "Announcements", "MPRIS", "DBusBinding",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/Node/MediaNode",
            swiftSettings: swiftSettings
        ),

        // MARK: - Executables
        .executableTarget(
            name: "medianode",
            dependencies: [
                "MediaNode", "MediaJSON", "Playback", "RemoteCommands", "MQTTTransport", "CatalogStore", "GStreamerAudio", "CMalloc",
                "NodeMetrics", "DBusBinding",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Tools/medianode",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "medianode-bench",
            dependencies: [
                "MediaNode", "MediaNodeFixtures", "ContentTree", "CatalogStore", "MQTTTransport", "GStreamerAudio", "Playback",
                "CGStreamer", "Artwork", "CGdkPixbuf", "MediaJSON", "HTTPTransfer", "NodeMetrics", "Downloads", "DBusBinding", "MPRIS",
                "CTagLib", "CMalloc",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/medianode-bench",
            swiftSettings: swiftSettings
        ),

        /// Many nodes in one process on simulated audio outputs, driven through the brokers (the fleet rig).
        .executableTarget(
            name: "medianode-rig",
            dependencies: [
                "MediaNode", "MQTTTransport", "CatalogStore", "ContentTree", "Playback", "MediaJSON", "NodeMetrics", "CMalloc",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Tools/medianode-rig",
            swiftSettings: swiftSettings
        ),

        // MARK: - Test support and tests
        /// What the benchmarks share with the tests: a real mosquitto, the range server, generated audio, catalogs
        /// and hostile payloads, a test MQTT client, the in-memory audio engine.
        .target(
            name: "MediaNodeFixtures",
            dependencies: [
                "MQTTTransport", "Playback", "RemoteCommands", "ContentTree", "CatalogStore", "CTagLib",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Sources/TestKit/MediaNodeFixtures",
            swiftSettings: swiftSettings
        ),
        /// The test kit: the fixtures above (re-exported), in-memory twins, the dashboard's browser, the node as a process.
        .target(
            name: "MediaNodeTesting",
            dependencies: [
                "MediaNodeFixtures", "MQTTTransport", "MediaNode", "Playback", "ContentTree",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/TestKit/MediaNodeTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediaNodeCoreTests",
            dependencies: [
                "MediaJSON", "RemoteCommands", "Playback", "NowPlaying", "ContentTree", "Announcements", "MediaNode", "MediaNodeTesting",
                "MPRIS", "DBusBinding",
            ],
            swiftSettings: swiftSettings
        ),
        /// The node's own logic on in-memory twins (transport, audio engine, catalog): no broker, no GStreamer.
        .testTarget(
            name: "MediaNodeTests",
            dependencies: [
                "MediaNode", "MediaNodeTesting", "MQTTTransport", "MediaJSON", "RemoteCommands", "ContentTree", "Playback",
                "NodeMetrics", .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GStreamerAudioTests",
            dependencies: ["GStreamerAudio", "MediaNodeTesting", "speech-child"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "speech-child",
            dependencies: ["GStreamerAudio", "Playback"],
            path: "Tests/SpeechChild",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "catalog-import-child",
            dependencies: ["CatalogStore", "MediaNodeTesting"],
            path: "Tests/CatalogImportChild",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogStoreTests",
            dependencies: [
                "CatalogStore", "Downloads", "HTTPTransfer", "MediaNodeTesting", "catalog-import-child",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediaNodeIntegrationTests",
            dependencies: [
                "MediaNode", "MediaNodeTesting", "MQTTTransport", "MediaJSON", "RemoteCommands", "ContentTree",
                "CatalogStore", "GStreamerAudio", "Playback", "NowPlaying", "NodeMetrics", "DBusBinding", "MPRIS",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
