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
        #expect(replays == [false, false, false, false, false, true, false, false, true])
    }

    /// `NWPathMonitor` reports where the path stands soon after it starts (Apple's reference says only that the
    /// handler "receives network path updates"; apps see a first call at start, and the rule must not depend on
    /// whether it comes): that is no change, and a replay it started would race the app's first requests.
    @Test(arguments: [true, false])
    func theFirstReportIsWhereThePathStandsNotAChange(satisfied: Bool) {
        var transitions = PathTransitions()
        let first = transitions.update(isSatisfied: satisfied)
        #expect(!first)
        let next = transitions.update(isSatisfied: true)
        #expect(next == !satisfied, "a path that was not satisfied came back")
    }
}
