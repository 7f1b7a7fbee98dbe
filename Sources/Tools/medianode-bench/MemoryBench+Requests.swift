import Foundation
import MediaNode
import MediaNodeFixtures
import Playback

/// The mixed requests the memory benchmark sends: playback (play an item, play, pause, seek), reads of the
/// tree (browse of every published page and deeper, contentItem of every identifier seen, and unknown
/// ones), and the fuzz test's hostile payloads, deterministic for a seed.
struct RequestMix: Sendable {
    let paths: [[Int]]
    let identifiers: [String]
    let seed: UInt64

    init(tree: (paths: [[Int]], identifiers: [String]), seed: UInt64) {
        paths = tree.paths.isEmpty ? [[]] : tree.paths
        identifiers = tree.identifiers.isEmpty ? ["track:none"] : tree.identifiers
        self.seed = seed
    }

    /// Sends `count` requests, four in flight at a time as a few clients would, and returns how many got no
    /// reply on P/result within 15 s.
    func send(_ count: Int, to observer: MemoryObserver) async throws -> Int {
        let (paths, identifiers, seed, prefix) = (paths, identifiers, seed, observer.prefix)
        return await onDedicatedThread {
            var random = SeededGenerator(seed: seed)
            var hostile = HostilePayloads(seed: seed, commands: CommandTable.commands)
            let inFlight = 4
            var lost = 0
            for index in 0..<count {
                if index >= inFlight, !observer.waitForReply(seconds: 15) { lost += 1 }
                let (command, payload) = Self.request(&random, &hostile, paths: paths, identifiers: identifiers)
                try? observer.client.publish(topic: TopicLayout(prefix: prefix).command(command), payload: payload, qos: 1)
            }
            for _ in 0..<min(inFlight, count) where !observer.waitForReply(seconds: 15) { lost += 1 }
            return lost
        }
    }

    static func request(_ random: inout SeededGenerator, _ hostile: inout HostilePayloads, paths: [[Int]],
                        identifiers: [String]) -> (String, [UInt8]) {
        func json(_ text: String) -> [UInt8] { Array(text.utf8) }
        func path(_ indices: [Int]) -> String { "[" + indices.map(String.init).joined(separator: ",") + "]" }
        switch random.nextIndex(below: 20) {
        case 0: return ("playItem", json(#"{"indexPath":[0,1,0,\#(random.nextIndex(below: 3))]}"#))
        case 1, 2: return ("play", [])
        case 3, 4: return ("pause", [])
        case 5, 6: return ("changePlaybackPosition", json(#"{"positionTime":\#(random.nextIndex(below: 29))}"#))
        case 7, 8, 9:
            let page = paths[random.nextIndex(below: paths.count)]
            return ("browse", json(#"{"indexPath":\#(path(page)),"offset":\#(random.nextIndex(below: 3)),"limit":50}"#))
        case 10:
            // One level below a published page: published when browsed.
            let page = paths[random.nextIndex(below: paths.count)] + [random.nextIndex(below: 3)]
            return ("browse", json(#"{"indexPath":\#(path(page))}"#))
        case 11, 12, 13:
            return ("contentItem", json(#"{"identifier":"\#(identifiers[random.nextIndex(below: identifiers.count)])"}"#))
        case 14: return ("contentItem", json(#"{"identifier":"track:unknown\#(random.nextIndex(below: 1_000_000))"}"#))
        default:
            let request = hostile.next(playablePath: [0, 1, 0, 0])
            return (request.command, request.payload)
        }
    }
}
