import Foundation
import MediaJSON

/// One command the driver sends, and what the node's reply and retained topics must say after it.
struct Step {
    var command: String
    var payload: JSONValue = .object([:])
    /// What must hold once the reply is in, on the node's retained topics (nil: the reply alone).
    var expectation: (@Sendable (WatchedNode, _ sinceSent: Double) -> Bool)?
    /// What must hold instead once the command was sent more than once (nil: the same): a copy sent again
    /// after 5 s may find the first one delivered late and performed, and a command that steps then steps twice.
    var expectationAfterCopies: (@Sendable (WatchedNode, _ sinceSent: Double) -> Bool)?
    /// What must hold of the reply's `data`.
    var replyCheck: (@Sendable (JSONValue?) -> Bool)?
    var describe: String
}

/// Sends each node its commands at the rate asked, one at a time, and checks each answer.
struct Load: Sendable {
    let driver: Driver
    let playables: [RigCatalog.Playable]
    let stats: Stats
    /// How long a retained topic may take to agree with a reply that came before it: the node publishes
    /// the state before the reply, but a broker (a cluster above all) need not keep order across topics.
    /// While no state newer than the command has arrived at all, the wait goes on as long as a reply's
    /// would (`attempts` x `replyTimeout`).
    static let settleTime = 2.0
    static let replyTimeout: Duration = .seconds(5)
    /// Sends of one command before it counts as lost (6 sends, 30 s): a NATS cluster that loses a member
    /// stalls every client's traffic while its JetStream streams elect new leaders (a 4-9 s election
    /// timeout, 8-20 s in all on a loaded two-core machine), and a node that was on the lost member is
    /// back only after that.
    static let attempts = 6

    /// Commands scheduled before `measuredFrom` are sent and checked like the others, but their reply
    /// times and lag are left out of the figures (`--warmup`).
    func drive(node: String, index: Int, count: Int, rate: Double, until end: ContinuousClock.Instant,
               measuredFrom: ContinuousClock.Instant) async {
        let clock = ContinuousClock()
        let interval = Duration.milliseconds(Int(1000 / rate))
        // Spread over the first interval, so the commands of a thousand nodes do not leave in one burst.
        var next = clock.now + interval * (Double(index) / Double(max(1, count)))
        var sequence = 0
        var generator = SystemRandomNumberGenerator()
        while next < end {
            if Task.isCancelled { return }
            await SendSchedule.shared.sleep(until: next)
            let measured = next >= measuredFrom
            // How late this command leaves against its schedule: the generator's own lag.
            if measured { stats.lagged(milliseconds: (clock.now - next).seconds * 1000) }
            next += interval
            guard let view = driver.snapshot(of: node) else { return }
            let step = plan(view, using: &generator)
            sequence += 1
            stats.sent()
            let sentAt = clock.now
            let sentAtWallClock = Date().timeIntervalSince1970
            let id = "\(node)-\(sequence)"
            var answer: Answer?
            var attempts = 0
            while answer == nil, attempts < Self.attempts {
                if attempts > 0 {
                    // A command published while its node moves between brokers is lost (topics.md, "Several
                    // brokers"): as a client that needs the answer does, the driver sends it again.
                    stats.resent("\(node): no reply to \(step.describe) within 5 s; sent again")
                }
                attempts += 1
                answer = await driver.send(step.command, step.payload, to: node, id: id, timeout: Self.replyTimeout)
            }
            guard let answer else {
                stats.lost("\(node): no reply to \(step.describe) within 5 s, \(attempts) times")
                continue
            }
            let reply = answer.reply
            stats.answered(milliseconds: measured ? answer.milliseconds : .nan)
            // A copy sent again may find the first one done (a second pause is refused): then only the
            // retained state can tell whether the command took effect.
            guard reply["status"]?.stringValue == "success" || attempts > 1 else {
                stats.wrong("\(node): \(step.describe) answered \(reply.jsonString)")
                continue
            }
            if let check = step.replyCheck, !check(reply["data"]) {
                stats.wrong("\(node): \(step.describe) answered data that does not match: \(reply.jsonString)")
                continue
            }
            guard let expectation = attempts > 1 ? step.expectationAfterCopies ?? step.expectation : step.expectation
            else { continue }
            let settleBy = clock.now + .seconds(Self.settleTime)
            let staleBy = sentAt + Self.replyTimeout * Self.attempts
            var agreed = false
            while true {
                let view = driver.snapshot(of: node)
                if let view, expectation(view, (clock.now - sentAt).seconds) {
                    agreed = true
                    break
                }
                // Nothing newer than the command has arrived: the broker still holds the state back (a
                // cluster electing leaders delivers QoS 1 traffic late, replies sometimes first). That is
                // late, not wrong, as long as it comes while a reply could still come.
                // "Newer" by when the node made it: a document made before the command and delivered after
                // it (a cluster member catching up) says nothing about the command's effect.
                let madeSince = view?.nowPlaying?["timestamp"]?.numberValue.map { $0 >= sentAtWallClock } ?? false
                let heardSince = madeSince || (view?.volumeArrivedAt.map { $0 > sentAt } ?? false)
                guard clock.now < settleBy || (!heardSince && clock.now < staleBy) else { break }
                try? await Task.sleep(for: .milliseconds(20))
            }
            if !agreed {
                let view = driver.snapshot(of: node)
                stats.wrong("\(node): after \(step.describe): nowplaying \(view?.nowPlaying?.jsonString ?? "none"), volume \(view?.volume?.jsonString ?? "none")")
            }
        }
    }

    /// Chooses the next command from what the node shows now: something that should succeed, with a
    /// visible effect to check where the command has one.
    func plan(_ view: WatchedNode, using generator: inout some RandomNumberGenerator) -> Step {
        let nowPlaying = view.nowPlaying
        let state = nowPlaying?["state"]?.stringValue ?? "stopped"
        guard state == "playing" || state == "paused", let current = nowPlaying?["identifier"]?.stringValue else {
            // Stopped, as every node is at the start: a command that works with nothing loaded, so a
            // fleet's first second is its usual mix and not one playItem for every node at once.
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return browse(using: &generator)
            case 1: return search(using: &generator)
            case 2: return changeVolume(using: &generator)
            default: return playItem(using: &generator)
            }
        }
        let duration = nowPlaying?["playbackDuration"]?.numberValue ?? 0
        let position = Self.livePosition(nowPlaying)
        let index = Int(nowPlaying?["playbackQueueIndex"]?.numberValue ?? 0)
        let count = Int(nowPlaying?["playbackQueueCount"]?.numberValue ?? 0)
        // Near an item's end the item may change under the command: only commands that do not care.
        let settled = duration - position > 8
        var choices: [String] = ["browse", "search", "changeVolume", "playItem"]
        if settled {
            choices += [state == "playing" ? "pause" : "play", "changePlaybackPosition", "changePlaybackPosition"]
            if index + 1 < count { choices.append("nextTrack") }
            choices.append(state == "playing" ? "pause" : "play")
        }
        switch choices.randomElement(using: &generator)! {
        case "pause":
            return Step(command: "pause", expectation: { view, _ in view.nowPlaying?["state"]?.stringValue == "paused" },
                        describe: "pause")
        case "play":
            return Step(command: "play", expectation: { view, _ in view.nowPlaying?["state"]?.stringValue == "playing" },
                        describe: "play")
        case "changePlaybackPosition":
            let target = (Double.random(in: 0..<(duration - 10), using: &generator) * 10).rounded() / 10
            return Step(
                command: "changePlaybackPosition", payload: ["positionTime": .number(target)],
                expectation: { view, sinceSent in
                    guard view.nowPlaying?["identifier"]?.stringValue == current else { return false }
                    let live = Self.livePosition(view.nowPlaying)
                    return live >= target - 0.3 && live <= target + sinceSent + 0.5
                },
                describe: "changePlaybackPosition \(target)")
        case "nextTrack":
            return Step(
                command: "nextTrack",
                expectation: { view, _ in
                    let identifier = view.nowPlaying?["identifier"]?.stringValue
                    return identifier != nil && identifier != current
                },
                // Two copies that both took effect may have stepped past the queue's end.
                expectationAfterCopies: { view, _ in
                    view.nowPlaying?["identifier"]?.stringValue != current || view.nowPlaying?["state"]?.stringValue == "stopped"
                },
                describe: "nextTrack from \(current)")
        case "changeVolume":
            return changeVolume(using: &generator)
        case "browse":
            return browse(using: &generator)
        case "search":
            return search(using: &generator)
        default:
            return playItem(using: &generator)
        }
    }

    func changeVolume(using generator: inout some RandomNumberGenerator) -> Step {
        let level = Double(Int.random(in: 0...100, using: &generator)) / 100
        return Step(command: "changeVolume", payload: ["volume": .number(level)],
                    expectation: { view, _ in view.volume?["volume"]?.numberValue == level },
                    describe: "changeVolume \(level)")
    }

    func browse(using generator: inout some RandomNumberGenerator) -> Step {
        let path = [[], [0], [1], [0, 0], [0, 1]].randomElement(using: &generator)!
        let requested = JSONValue.array(path.map { .number(Double($0)) })
        return Step(command: "browse", payload: ["indexPath": requested],
                    replyCheck: { data in data?["indexPath"] == requested },
                    describe: "browse \(requested.jsonString)")
    }

    /// Searches for a playable's whole title: the contract ranks a title equal to the query first, and
    /// every title in the rig's catalog is distinct, so that item must lead the answer.
    func search(using generator: inout some RandomNumberGenerator) -> Step {
        let item = playables.randomElement(using: &generator)!
        return Step(
            command: "search", payload: ["query": .string(item.title), "limit": 5],
            replyCheck: { data in
                guard let items = data?["items"]?.arrayValue, let total = data?["total"]?.numberValue else { return false }
                return total >= 1 && items.count <= 5 && items.first?["identifier"]?.stringValue == item.identifier
            },
            describe: "search \"\(item.title)\"")
    }

    func playItem(using generator: inout some RandomNumberGenerator) -> Step {
        let item = playables.randomElement(using: &generator)!.identifier
        return Step(
            command: "playItem", payload: ["identifier": .string(item)],
            expectation: { view, _ in
                view.nowPlaying?["state"]?.stringValue == "playing" && view.nowPlaying?["identifier"]?.stringValue == item
            },
            describe: "playItem \(item)")
    }

    /// The position a reader computes from the now-playing document: elapsed + (now - timestamp) x rate.
    static func livePosition(_ nowPlaying: JSONValue?) -> Double {
        let elapsed = nowPlaying?["elapsedPlaybackTime"]?.numberValue ?? 0
        let timestamp = nowPlaying?["timestamp"]?.numberValue ?? Date().timeIntervalSince1970
        let rate = nowPlaying?["playbackRate"]?.numberValue ?? 0
        return elapsed + (Date().timeIntervalSince1970 - timestamp) * rate
    }
}
