import NetworkLayerCore
import NetworkLayerSupport

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

    /// Whether a caller starts its own send (when it finds the loop waiting) rather than leave it in the inbox for
    /// the loop's thread: only when the send is the loop's only one, so that under load the loop's thread starts
    /// every send and callers do not take turns with it for the loop. A caller's thread is one of Swift's
    /// cooperative threads, so never for an upload, which reads its file or form and calls its progress closure as
    /// libcurl sends it, and only when libcurl resolves host names without blocking the thread that drives it.
    static func callerStartsSend(sendsAlreadyOnLoop: Int, uploads: Bool, resolvesAsynchronously: Bool) -> Bool {
        resolvesAsynchronously && !uploads && sendsAlreadyOnLoop == 0
    }

    /// How long a loop waits for its sockets, in milliseconds, when libcurl wants its timer in `timer` milliseconds
    /// (-1: libcurl has no timer set): until the timer, and never longer than `longest`.
    static func wait(forTimer timer: Int, longest: Int32) -> Int32 {
        timer < 0 ? longest : Int32(min(timer, Int(longest)))
    }

    /// Whether a caller that started a send while the loop waits must wake the loop: libcurl now wants its timer in
    /// `timer` milliseconds (-1: none), and that is before the wait, which ends at `waitEnds`, ends by itself.
    /// Times are in nanoseconds on one monotonic clock.
    static func mustWake(forTimer timer: Int, now: UInt64, waitEnds: UInt64) -> Bool {
        timer >= 0 && now + UInt64(timer) * 1_000_000 < waitEnds
    }
}
