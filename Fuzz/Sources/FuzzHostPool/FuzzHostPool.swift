import Foundation

@testable import NetworkLayerCurl

/// One input as a sequence of events for ``CurlHostPool``, CurlTransport's placement of sends over its threads,
/// checked against a model kept beside it: every send is running on one loop, waiting, or gone; a send is let go
/// once, only if it waited, to a loop it may run on, first first among those; no loop runs more sends to a host than
/// its share unless the host multiplexes; a withdrawal or a close hands back exactly the sends that wait.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 2 else { return 0 }
    var bytes = UnsafeBufferPointer(start: start, count: count).makeIterator()
    func next() -> Int { Int(bytes.next() ?? 0) }
    let loops = 1 + next() % 3
    let shares = (0..<loops).map { _ in 1 + next() % 3 }
    var pool = CurlHostPool<Int>(connectionsPerHost: shares)
    var model = Model(shares: shares)
    let hosts = ["http://a", "http://b", "https://c"]
    var lastID = 0
    var steps = 0
    while let operation = bytes.next(), steps < 4096 {
        steps += 1
        let host = hosts[next() % hosts.count]
        let loop = next() % loops
        switch operation % 7 {
        case 0:
            lastID += 1
            let loads = (0..<loops).map { _ in next() % 4 }
            switch pool.place(lastID, lastID, to: host, loads: loads) {
            case .run(let placed):
                precondition(!model.isClosed, "a closed pool placed a send")
                precondition(model.mayRun(host, on: placed), "a send placed on a loop with no free connection")
                precondition(
                    (0..<loops).allSatisfy { other in
                        !model.mayRun(host, on: other) || loads[other] >= loads[placed]
                    }, "a send placed on a busier loop than one with a free connection")
                model.run(lastID, host, on: placed)
            case .wait:
                precondition(!model.isClosed)
                precondition((0..<loops).allSatisfy { !model.mayRun(host, on: $0) }, "a send waits beside a free one")
                model.wait(lastID, host, pinned: nil)
            case .refused:
                precondition(model.isClosed, "an open pool refused a send")
            }
        case 1:
            lastID += 1
            if pool.admit(lastID, lastID, to: host, onLoop: loop) {
                precondition(model.mayRun(host, on: loop), "a hop admitted over its loop's share")
                model.run(lastID, host, on: loop)
            } else {
                precondition(!model.mayRun(host, on: loop), "a hop waits beside a free connection of its loop")
                model.wait(lastID, host, pinned: loop)
            }
        case 2, 3:
            guard let (id, runningHost, runningLoop) = model.anyRunning(pick: next()) else { continue }
            let multiplexes: Bool? = [nil, true, false][next() % 3]
            model.leave(id)
            model.learn(runningHost, multiplexes: multiplexes)
            let released = pool.leave(runningHost, fromLoop: runningLoop, multiplexes: multiplexes)
            model.check(released, host: runningHost, loop: runningLoop)
        case 4:
            model.learn(host, multiplexes: true)
            model.check(pool.learnMultiplexing(of: host, onLoop: loop), host: host, loop: loop)
        case 5:
            let id = next() % (lastID + 2)
            let withdrawn = pool.withdraw(id, from: host)
            precondition((withdrawn?.id == id) == model.isWaiting(id, host), "a withdrawal disagrees with the model")
            if withdrawn != nil { model.forget(id) }
        default:
            guard next() % 8 == 0 else { continue }
            let handed = pool.close().map(\.id).sorted()
            precondition(handed == model.waitingIDs.sorted(), "a close did not hand back exactly what waits")
            model.close()
        }
        for host in hosts {
            precondition(pool.waitingCount(for: host) == model.waitingCount(host), "waiting counts disagree")
            for loop in 0..<loops {
                precondition(
                    pool.runningCount(for: host, onLoop: loop) == model.runningCount(host, loop),
                    "running counts disagree")
            }
        }
    }
    return 0
}

/// What the pool should hold, kept the plain way.
struct Model {
    let shares: [Int]
    private var running: [Int: (host: String, loop: Int)] = [:]
    /// Waiting sends in the order they came.
    private var line: [(id: Int, host: String, pinned: Int?)] = []
    private var multiplexing: Set<String> = []
    private(set) var isClosed = false

    init(shares: [Int]) { self.shares = shares }

    func runningCount(_ host: String, _ loop: Int) -> Int {
        running.values.filter { $0.host == host && $0.loop == loop }.count
    }

    func waitingCount(_ host: String) -> Int { line.filter { $0.host == host }.count }

    var waitingIDs: [Int] { line.map(\.id) }

    func mayRun(_ host: String, on loop: Int) -> Bool {
        multiplexing.contains(host) || runningCount(host, loop) < shares[loop]
    }

    func isWaiting(_ id: Int, _ host: String) -> Bool { line.contains { $0.id == id && $0.host == host } }

    func anyRunning(pick: Int) -> (Int, String, Int)? {
        guard !running.isEmpty else { return nil }
        let ids = running.keys.sorted()
        let id = ids[pick % ids.count]
        return (id, running[id]!.host, running[id]!.loop)
    }

    mutating func run(_ id: Int, _ host: String, on loop: Int) { running[id] = (host, loop) }
    mutating func wait(_ id: Int, _ host: String, pinned: Int?) { line.append((id, host, pinned)) }
    mutating func leave(_ id: Int) { running[id] = nil }
    mutating func forget(_ id: Int) { line.removeAll { $0.id == id } }

    mutating func learn(_ host: String, multiplexes: Bool?) {
        switch multiplexes {
        case true?: multiplexing.insert(host)
        case false?: multiplexing.remove(host)
        case nil: break
        }
    }

    mutating func close() {
        isClosed = true
        line = []
    }

    /// Checks what the pool let go to `loop` for `host`: the first eligible waiters, as many as may run there.
    mutating func check(_ released: [CurlHostPool<Int>.Waiter], host: String, loop: Int) {
        for waiter in released {
            guard let index = line.firstIndex(where: { $0.id == waiter.id }) else {
                preconditionFailure("a send let go that was not waiting (or was let go twice)")
            }
            let first = line.firstIndex { $0.host == host && ($0.pinned == nil || $0.pinned == loop) }
            precondition(index == first, "a send let go out of its turn")
            precondition(line[index].host == host, "a send let go for another host")
            precondition(mayRun(host, on: loop), "a send let go over the loop's share")
            line.remove(at: index)
            running[waiter.id] = (host, loop)
        }
        let eligibleLeft = line.contains { $0.host == host && ($0.pinned == nil || $0.pinned == loop) }
        precondition(!eligibleLeft || !mayRun(host, on: loop), "a send still waits beside a free connection")
    }
}
