import Foundation
import MediaNode
import MediaNodeTesting
import Testing

/// The vehicle's `P/context` is retained, so a node hears it as it subscribes, while its tree is starting.
@Suite("A retained context heard while the tree starts")
struct ContextAtStartTests {
    @Test("content limits retained before the start hold from the first tree on, and the upper levels are all there",
          arguments: 1...10)
    func limitsRetainedBeforeStart(run: Int) async throws {
        let context = #"{"contentLimitsEnforced":true,"enforcedContentTreeDepth":2}"#
        let rig = try await NodeRig.start(retainedBeforeStart: [(topic: "medianode/unit/context", payload: context)])
        let root = rig.topics.contentTree
        // The root and the Music section (depth 1) are published; the album below it (depth 2) is not, or is
        // cleared again at once if the tree went out before the context was read.
        _ = try await rig.retained(root) { _ in true }
        _ = try await rig.retained(root + "/0") { $0["item"]?["identifier"] == "section:music" }
        let deadline = ContinuousClock.now + .seconds(3)
        while rig.broker.retained(root + "/0/0") != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(rig.broker.retained(root + "/0/0") == nil, "run \(run): the album node is retained beyond the enforced depth")
        #expect(rig.broker.retained(root) != nil && rig.broker.retained(root + "/0") != nil)
        await rig.stop()
    }
}
