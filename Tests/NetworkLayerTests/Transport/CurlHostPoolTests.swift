import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

@Suite("CurlTransport's pool of connections to each host, as a value")
struct CurlHostPoolTests {
    let host = "http://127.0.0.1:8080"
    typealias Pool = CurlHostPool<String>

    /// Places each new send in turn on the pool's loops (their loads as the pool counts them); where each runs, or
    /// `nil` for one that waits.
    private func place(_ ids: [Int], to host: String, in pool: inout Pool) -> [Int?] {
        ids.map { id in
            let loads = pool.connectionsPerHost.indices.map { pool.runningCount(for: host, onLoop: $0) }
            switch pool.place(id, "send \(id)", to: host, loads: loads) {
            case .run(let loop): return loop
            case .wait: return nil
            case .refused: return -1
            }
        }
    }

    /// Lets one send to `host` leave `loop` `count` times; the sends let go to that loop, in order.
    private func leave(
        _ host: String, fromLoop loop: Int = 0, times count: Int = 1, multiplexes: Bool?, in pool: inout Pool
    ) -> [Int] {
        (0..<count).flatMap { _ in pool.leave(host, fromLoop: loop, multiplexes: multiplexes).map(\.id) }
    }

    // MARK: One loop (the queue every loop had)

    @Test func libcurlRunsNoMoreSendsToAHostThanItsConnectionsAndTheOthersWaitInOrder() {
        var pool = Pool(connectionsPerHost: [2])
        #expect(place([1, 2, 3, 4], to: host, in: &pool) == [0, 0, nil, nil])
        #expect(pool.runningCount(for: host) == 2)
        #expect(pool.waitingCount(for: host) == 2)
        #expect(leave(host, multiplexes: false, in: &pool) == [3], "the first to wait goes first")
        #expect(leave(host, multiplexes: false, in: &pool) == [4])
        #expect(pool.runningCount(for: host) == 2, "3 and 4 run")
        #expect(pool.waitingCount(for: host) == 0)
        #expect(leave(host, times: 2, multiplexes: nil, in: &pool) == [])
        #expect(pool.runningCount(for: host) == 0)
        #expect(place([5], to: host, in: &pool) == [0], "a host with nothing running takes a send at once")
    }

    @Test func eachHostHasConnectionsOfItsOwn() {
        var pool = Pool(connectionsPerHost: [1])
        let other = "https://127.0.0.1:8443"
        #expect(place([1, 2], to: host, in: &pool) == [0, nil])
        #expect(place([3], to: other, in: &pool) == [0], "a busy host does not hold up another")
        #expect(leave(other, multiplexes: false, in: &pool) == [], "a send to another host lets none of these go")
        #expect(leave(host, multiplexes: false, in: &pool) == [2])
    }

    @Test func aHostThatMultiplexesTakesEverySendAtOnceUntilAReplyComesWithoutIt() {
        var pool = Pool(connectionsPerHost: [1])
        #expect(place([1, 2, 3], to: host, in: &pool) == [0, nil, nil])
        #expect(leave(host, multiplexes: true, in: &pool) == [2, 3], "an HTTP/2 reply lets every waiting send go")
        #expect(place([4], to: host, in: &pool) == [0])
        #expect(pool.runningCount(for: host) == 3)
        #expect(leave(host, multiplexes: nil, in: &pool) == [], "a send that got no reply tells nothing")
        #expect(place([5], to: host, in: &pool) == [0], "so the host still multiplexes")
        #expect(leave(host, multiplexes: false, in: &pool) == [], "an HTTP/1.1 reply ends it")
        #expect(place([6], to: host, in: &pool) == [nil], "two still run, over the one connection allowed")
    }

    @Test func aHeadOverHTTP2LetsTheWaitingSendsGoWhileItsSendStillRuns() {
        var pool = Pool(connectionsPerHost: [1])
        #expect(place([1, 2, 3], to: host, in: &pool) == [0, nil, nil])
        #expect(pool.learnMultiplexing(of: host, onLoop: 0).map(\.id) == [2, 3], "a long stream holds up no other")
        #expect(pool.runningCount(for: host) == 3)
        #expect(pool.learnMultiplexing(of: host, onLoop: 0).isEmpty, "nothing waits any more")
        #expect(place([4], to: host, in: &pool) == [0])
    }

    @Test func aSendThatEndsWhileItWaitsIsForgottenAndNeverLetGo() {
        var pool = Pool(connectionsPerHost: [1])
        #expect(place([1, 2, 3], to: host, in: &pool) == [0, nil, nil])
        let withdrawn = [
            pool.withdraw(2, from: host)?.item, pool.withdraw(2, from: host)?.item, pool.withdraw(1, from: host)?.item,
        ]
        #expect(withdrawn == ["send 2", nil, nil], "a send withdrawn once no longer waits; a running one never did")
        #expect(leave(host, multiplexes: false, in: &pool) == [3])
        #expect(pool.waitingCount(for: host) == 0)
    }

    @Test func manySendsWaitAndLeaveInTheOrderTheyCame() {
        var pool = Pool(connectionsPerHost: [3])
        let placed = place(Array(0..<1000), to: host, in: &pool)
        #expect(placed.filter { $0 != nil }.count == 3)
        #expect(placed.prefix(3).allSatisfy { $0 == 0 })
        #expect(pool.withdraw(500, from: host) != nil)
        let released = leave(host, times: 999, multiplexes: false, in: &pool)  // 1000 placed, one withdrawn
        #expect(released == Array(3..<500) + Array(501..<1000))
        #expect(pool.runningCount(for: host) == 0)
        #expect(pool.waitingCount(for: host) == 0)
    }

    @Test func sendsArePooledBySchemeHostAndPortInLowerCase() {
        func key(_ text: String) -> String { Pool.host(ofURL: text) }
        #expect(key("http://Example.COM/a?b=1") == "http://example.com")
        #expect(key("HTTP://example.com?b=1") == "http://example.com")
        #expect(key("https://example.com#top") == "https://example.com")
        #expect(key("https://example.com:8443/") == "https://example.com:8443")
        #expect(key("http://[::1]:8080/x") == "http://[::1]:8080")
        #expect(key("http://127.0.0.1:8080/x") != key("http://127.0.0.1:8081/x"))
        #expect(key("https://127.0.0.1:8080/x") != key("http://127.0.0.1:8080/x"))
        #expect(key("no scheme") == "no scheme", "checked requests are absolute: none reaches the pool without one")
    }

    // MARK: Several loops: one pool

    @Test func aNewSendGoesToTheLeastBusyLoopWithAFreeConnectionAndTheFirstOnATie() {
        var pool = Pool(connectionsPerHost: [2, 2, 2])
        #expect(pool.place(1, "", to: host, loads: [0, 0, 0]) == .run(onLoop: 0), "one after another: one loop")
        #expect(pool.place(2, "", to: host, loads: [3, 1, 2]) == .run(onLoop: 1))
        #expect(pool.place(3, "", to: host, loads: [9, 1, 9]) == .run(onLoop: 1))
        #expect(
            pool.place(4, "", to: host, loads: [9, 0, 9]) == .run(onLoop: 0),
            "loop 1 has no free connection to the host, however idle it is otherwise")
        #expect(pool.place(5, "", to: "http://other", loads: [9, 0, 9]) == .run(onLoop: 1))
    }

    @Test func aSendWaitsOnlyWhenEveryConnectionToItsHostIsBusyOnEveryLoop() {
        // Sixteen connections over two loops; ten slow sends take eight of one loop's and two of the other's.
        var pool = Pool(connectionsPerHost: [8, 8])
        for id in 0..<8 { #expect(pool.place(id, "slow", to: host, loads: [0, 1]) == .run(onLoop: 0)) }
        for id in 8..<10 { #expect(pool.place(id, "slow", to: host, loads: [0, 1]) == .run(onLoop: 1)) }
        // The other sends take the six connections left, all on loop 1 though it is the busier loop.
        let quick = (10..<20).map { pool.place($0, "quick", to: host, loads: [0, 100]) }
        #expect(quick.prefix(6).allSatisfy { $0 == .run(onLoop: 1) })
        #expect(quick.dropFirst(6).allSatisfy { $0 == .wait })
        #expect(pool.runningCount(for: host) == 16)
        // A quick one leaves loop 1: the first waiting send runs there; a slow one leaves loop 0: the next runs there.
        #expect(pool.leave(host, fromLoop: 1, multiplexes: false).map(\.id) == [16])
        #expect(pool.leave(host, fromLoop: 0, multiplexes: false).map(\.id) == [17])
        #expect(pool.runningCount(for: host, onLoop: 0) == 8)
        #expect(pool.runningCount(for: host, onLoop: 1) == 8)
        #expect(pool.waitingCount(for: host) == 2)
    }

    @Test func aFollowUpHopWaitsForAConnectionOfItsOwnLoopAndKeepsItsPlaceInLine() {
        var pool = Pool(connectionsPerHost: [1, 1])
        #expect(place([1, 2], to: host, in: &pool) == [0, 1])
        #expect(place([3], to: host, in: &pool) == [nil])
        // Send 4, on loop 1 for another host, is redirected here: it waits for loop 1's connection.
        let hopRuns = pool.admit(4, "hop 4", to: host, onLoop: 1)
        #expect(!hopRuns)
        #expect(place([5], to: host, in: &pool) == [nil])
        #expect(pool.waitingCount(for: host) == 3)
        #expect(leave(host, fromLoop: 1, multiplexes: false, in: &pool) == [3], "the first in line, on any loop")
        #expect(leave(host, fromLoop: 0, multiplexes: false, in: &pool) == [5], "the hop passes: it is loop 1's")
        #expect(leave(host, fromLoop: 1, multiplexes: false, in: &pool) == [4])
        let otherHopRuns = pool.admit(6, "hop 6", to: "http://other", onLoop: 0)
        #expect(otherHopRuns, "a free connection of its loop: at once")
    }

    @Test func aHostThatMultiplexesLetsItsSendsGoToTheLoopThatLearnedItButNotAnotherLoopsHops() {
        var pool = Pool(connectionsPerHost: [1, 1])
        #expect(place([1, 2, 3], to: host, in: &pool) == [0, 1, nil])
        let hopRuns = pool.admit(4, "hop 4", to: host, onLoop: 1)
        #expect(!hopRuns)
        #expect(pool.learnMultiplexing(of: host, onLoop: 0).map(\.id) == [3])
        #expect(pool.waitingCount(for: host) == 1, "loop 1's hop waits for loop 1")
        #expect(pool.learnMultiplexing(of: host, onLoop: 1).map(\.id) == [4])
        #expect(pool.place(5, "", to: host, loads: [4, 2]) == .run(onLoop: 1), "every loop takes it now")
    }

    @Test func aPoolThatIsClosedPlacesNothingAndHandsBackEveryWaitingSend() {
        var pool = Pool(connectionsPerHost: [1, 1])
        #expect(place([1, 2, 3, 4], to: host, in: &pool) == [0, 1, nil, nil])
        #expect(pool.waitingCount == 2)
        #expect(pool.close().map(\.id).sorted() == [3, 4])
        #expect(pool.waitingCount == 0)
        #expect(place([5], to: host, in: &pool) == [-1], "refused")
        #expect(leave(host, multiplexes: false, in: &pool) == [])
    }
}
