import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerEvents
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("ExponentialBackoff: the one doubling wait of retries, reconnections and replays")
struct ExponentialBackoffTests {
    @Test func theWaitDoublesFromTheBaseUpToTheMaximum() {
        let backoff = ExponentialBackoff(base: 0.5, maximum: 3)
        #expect((1...5).map(backoff.delay(beforeAttempt:)) == [0.5, 1, 2, 3, 3])
        #expect(backoff.delay(beforeAttempt: 0) == 0.5, "an attempt before the first waits the base")
    }

    @Test func anyNumberOfFailuresGivesAWaitWithinTheBounds() {
        for backoff in [ExponentialBackoff(base: 0, maximum: 30), ExponentialBackoff(base: 1, maximum: 300)] {
            for attempt in [64, 1_100, Int.max] {
                let delay = backoff.delay(beforeAttempt: attempt)
                #expect(delay >= 0 && delay <= backoff.maximum, "\(backoff) at \(attempt): \(delay)")
            }
        }
    }

    @Test func retriesReconnectionsAndReplaysWaitTheSame() {
        let retry = RetryMiddleware(
            maxAttempts: 5, baseDelay: 1, maxDelay: 300, sleep: { _ in }, now: { Date() }, random: { $0.upperBound })
        let reconnect = ReconnectPolicy(maximumAttempts: 5, initialDelay: 1, maximumDelay: 300)
        for attempt in 1...12 {
            let replay = OfflineQueue.replayBackoff.delay(beforeAttempt: attempt)
            let failure = Result<(Data, ResponseHead), any Error>.failure(
                NetworkError.transport(.timedOut, underlyingError: URLError(.timedOut)))
            #expect(retry.delay(after: failure, attempt: attempt) == replay)
            #expect(reconnect.delay(beforeAttempt: attempt, serverRetry: nil) == replay)
        }
    }
}
