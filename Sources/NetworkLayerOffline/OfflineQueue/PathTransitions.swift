import NetworkLayerCore
import NetworkLayerSupport

/// When a change of the network path is worth a replay of ``OfflineQueue``: when it becomes satisfied, not on every
/// update while it is (Apple's path monitor also reports a new interface, a change of cost, a VPN coming up). A
/// value, so that the rule is tested on every platform; only Apple platforms have a path monitor to feed it.
struct PathTransitions: Sendable {
    private var wasSatisfied: Bool?

    /// Takes the path's new state; returns whether a replay should start: the first update says satisfied, or the
    /// path was not satisfied before.
    mutating func update(isSatisfied: Bool) -> Bool {
        defer { wasSatisfied = isSatisfied }
        return isSatisfied && wasSatisfied != true
    }
}
