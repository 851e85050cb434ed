import NetworkLayerCore
import NetworkLayerSupport

/// When a change of the network path is worth a replay of ``OfflineQueue``: when the path comes back, not on every
/// update while it is satisfied (Apple's path monitor also reports a new interface, a change of cost, a VPN coming
/// up). A value, so that the rule is tested on every platform; only Apple platforms have a path monitor to feed it.
///
/// The first report is where the path stands when the queue opens, not a change: `NWPathMonitor` sends one soon after
/// it starts (its reference does not say when), and a replay started by it would race the app's first requests (one
/// queued meanwhile would go twice). A queue replays what an earlier run left after its first request that succeeds,
/// or on ``OfflineQueue/flush()``, on every platform alike.
struct PathTransitions: Sendable {
    private var wasSatisfied: Bool?

    /// Takes the path's new state; returns whether a replay should start: the path is satisfied, and an earlier
    /// report said it was not.
    mutating func update(isSatisfied: Bool) -> Bool {
        defer { wasSatisfied = isSatisfied }
        return isSatisfied && wasSatisfied == false
    }
}
