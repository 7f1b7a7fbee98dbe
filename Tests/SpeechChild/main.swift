// A child process for the speech test: four nodes' announcements spoken at once, as the first speech of a
// fresh process (eSpeak NG starts once per process, in the first espeak element made). Prints each outcome.
//
// Usage: speech-child
import Foundation
import GStreamerAudio
import Playback

let players = try (0..<4).map { _ in GStreamerClipPlayer(sharingOutputOf: try GStreamerEngine(sink: "fake")) }
let outcomes = await withTaskGroup(of: ClipOutcome.self) { group in
    for player in players {
        group.addTask { await player.play(.speech(text: "one two three", language: nil), amplitude: 1, started: {}) }
    }
    var outcomes: [ClipOutcome] = []
    for await outcome in group { outcomes.append(outcome) }
    return outcomes
}
for outcome in outcomes { print("\(outcome)") }
exit(outcomes.allSatisfy { $0 == .finished } ? 0 : 1)
