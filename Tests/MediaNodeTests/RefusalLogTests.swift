import Foundation
import MediaNodeTesting
import Testing
@testable import MediaNode

@Suite("A flood of failed commands does not flood the log")
struct RefusalLogTests {
    @Test("every one of 100 refused commands is answered; the log holds the budget's 20 lines, not 100")
    func floodIsAnsweredButNotLogged() async throws {
        let log = LogRecorder()
        let rig = try await NodeRig.start(logger: log.logger())
        for _ in 1...100 {
            // Nothing is loaded: each pause is refused.
            #expect(try await rig.request("pause")["status"] == "noActionableNowPlayingItem")
        }
        #expect(log.lines(containing: "pause -> noActionableNowPlayingItem").count == 20)
        await rig.stop()
    }

    @Test("past the budget lines are counted, and the count is told with the next window's first line")
    func heldLinesAreCounted() {
        let start = ContinuousClock.now
        let budget = LogBudget(linesPerWindow: 3, window: .seconds(10), now: start)
        let firstWindow = (0..<5).map { _ in budget.admit(at: start + .seconds(1)) }
        #expect(firstWindow.map(\.write) == [true, true, true, false, false])
        #expect(firstWindow.allSatisfy { $0.heldBefore == 0 })
        let next = budget.admit(at: start + .seconds(11))
        #expect(next.write && next.heldBefore == 2)
        #expect(budget.admit(at: start + .seconds(12)).heldBefore == 0)
    }
}
