import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("CurlTransport's host queue, as a value")
struct CurlHostQueueTests {
    let host = "http://127.0.0.1:8080"

    /// Offers each send in turn; whether libcurl runs it now.
    private func admit(_ ids: [Int], to host: String, in queue: inout CurlHostQueue<Int>) -> [Bool] {
        ids.map { queue.admit($0, to: host) }
    }

    /// Lets one send to `host` leave `count` times; the sends let go, in order.
    private func leave(
        _ host: String, times count: Int = 1, multiplexes: Bool?, in queue: inout CurlHostQueue<Int>
    ) -> [Int] {
        (0..<count).flatMap { _ in queue.leave(host, multiplexes: multiplexes) }
    }

    @Test func libcurlRunsNoMoreSendsToAHostThanItsConnectionsAndTheOthersWaitInOrder() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 2)
        #expect(admit([1, 2, 3, 4], to: host, in: &queue) == [true, true, false, false])
        #expect(queue.runningCount(for: host) == 2)
        #expect(queue.waitingCount(for: host) == 2)
        #expect(leave(host, multiplexes: false, in: &queue) == [3], "the first to wait goes first")
        #expect(leave(host, multiplexes: false, in: &queue) == [4])
        #expect(queue.runningCount(for: host) == 2, "3 and 4 run")
        #expect(queue.waitingCount(for: host) == 0)
        #expect(leave(host, times: 2, multiplexes: nil, in: &queue) == [])
        #expect(queue.runningCount(for: host) == 0)
        #expect(admit([5], to: host, in: &queue) == [true], "a host with nothing running takes a send at once")
    }

    @Test func eachHostHasConnectionsOfItsOwn() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 1)
        let other = "https://127.0.0.1:8443"
        #expect(admit([1, 2], to: host, in: &queue) == [true, false])
        #expect(admit([3], to: other, in: &queue) == [true], "a busy host does not hold up another")
        #expect(leave(other, multiplexes: false, in: &queue) == [], "a send to another host lets none of these go")
        #expect(leave(host, multiplexes: false, in: &queue) == [2])
    }

    @Test func aHostThatMultiplexesTakesEverySendAtOnceUntilAReplyComesWithoutIt() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 1)
        #expect(admit([1, 2, 3], to: host, in: &queue) == [true, false, false])
        #expect(leave(host, multiplexes: true, in: &queue) == [2, 3], "an HTTP/2 reply lets every waiting send go")
        #expect(admit([4], to: host, in: &queue) == [true])
        #expect(queue.runningCount(for: host) == 3)
        #expect(leave(host, multiplexes: nil, in: &queue) == [], "a send that got no reply tells nothing")
        #expect(admit([5], to: host, in: &queue) == [true], "so the host still multiplexes")
        #expect(leave(host, multiplexes: false, in: &queue) == [], "an HTTP/1.1 reply ends it")
        #expect(admit([6], to: host, in: &queue) == [false], "two still run, over the one connection allowed")
    }

    @Test func aHeadOverHTTP2LetsTheWaitingSendsGoWhileItsSendStillRuns() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 1)
        #expect(admit([1, 2, 3], to: host, in: &queue) == [true, false, false])
        #expect(queue.learnMultiplexing(of: host) == [2, 3], "a long stream does not hold up the others")
        #expect(queue.runningCount(for: host) == 3)
        #expect(queue.learnMultiplexing(of: host) == [], "nothing waits any more")
        #expect(admit([4], to: host, in: &queue) == [true])
    }

    @Test func aSendThatEndsWhileItWaitsIsForgottenAndNeverLetGo() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 1)
        #expect(admit([1, 2, 3], to: host, in: &queue) == [true, false, false])
        let withdrawn = [queue.withdraw(2, from: host), queue.withdraw(2, from: host), queue.withdraw(1, from: host)]
        #expect(withdrawn == [true, false, false], "a send withdrawn once no longer waits; a running one never did")
        #expect(leave(host, multiplexes: false, in: &queue) == [3])
        #expect(queue.waitingCount(for: host) == 0)
    }

    @Test func manySendsWaitAndLeaveInTheOrderTheyCame() {
        var queue = CurlHostQueue<Int>(connectionsPerHost: 3)
        let admitted = admit(Array(0..<1000), to: host, in: &queue)
        #expect(admitted.filter { $0 }.count == 3)
        #expect(admitted.prefix(3).allSatisfy { $0 })
        let withdrawn = queue.withdraw(500, from: host)
        #expect(withdrawn)
        let released = leave(host, times: 1000, multiplexes: false, in: &queue)
        #expect(released == Array(3..<500) + Array(501..<1000))
        #expect(queue.runningCount(for: host) == 0)
        #expect(queue.waitingCount(for: host) == 0)
    }

    @Test func sendsAreQueuedBySchemeHostAndPortInLowerCase() {
        func key(_ text: String) -> String { CurlHostQueue<Int>.host(ofURL: text) }
        #expect(key("http://Example.COM/a?b=1") == "http://example.com")
        #expect(key("HTTP://example.com?b=1") == "http://example.com")
        #expect(key("https://example.com#top") == "https://example.com")
        #expect(key("https://example.com:8443/") == "https://example.com:8443")
        #expect(key("http://[::1]:8080/x") == "http://[::1]:8080")
        #expect(key("http://127.0.0.1:8080/x") != key("http://127.0.0.1:8081/x"))
        #expect(key("https://127.0.0.1:8080/x") != key("http://127.0.0.1:8080/x"))
        #expect(key("no scheme") == "")
    }
}
