import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("PathTransitions: a replay when the network comes back, not on every path update")
struct PathTransitionsTests {
    @Test func onlyAChangeToSatisfiedStartsAReplay() {
        var transitions = PathTransitions()
        let updates = [true, true, true, false, false, true, true, false, true]
        let replays = updates.map { transitions.update(isSatisfied: $0) }
        #expect(replays == [true, false, false, false, false, true, false, false, true])
    }
}
