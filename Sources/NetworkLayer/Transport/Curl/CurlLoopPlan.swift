/// How ``CurlTransport`` spreads its work over its event loops: how many there are, how many connections to one host
/// each may open, and which one takes the next send. A value, tested without a loop.
struct CurlLoopPlan: Equatable {
    /// The most connections each loop may open to one host; their sum is the transport's limit, so no loop gets
    /// none: there are never more loops than connections allowed.
    let connectionsPerHost: [Int]

    /// The plan for `threads` loops (at least one) sharing `maximumConnectionsPerHost` connections to a host.
    init(threads: Int, maximumConnectionsPerHost: Int) {
        let connections = max(1, maximumConnectionsPerHost)
        let loops = min(max(1, threads), connections)
        connectionsPerHost = (0..<loops).map { connections / loops + ($0 < connections % loops ? 1 : 0) }
    }

    /// How many loops there are.
    var loopCount: Int { connectionsPerHost.count }

    /// The loop to take the next send: the one with the fewest sends, the first of those on a tie, so that sends
    /// one after another stay on one loop and its kept-alive connection.
    static func loop(forNextSendAmong loads: some Sequence<Int>) -> Int {
        var chosen = 0
        var fewest = Int.max
        for (index, load) in loads.enumerated() where load < fewest {
            chosen = index
            fewest = load
        }
        return chosen
    }
}
