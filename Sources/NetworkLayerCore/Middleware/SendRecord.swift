import NetworkLayerSupport

/// What one send left behind in every attempt of it, shared by the copies of its ``RequestContext``: the credentials
/// withheld, so that a middleware earlier in the chain (a logger) sees what a later one withheld; and whether any
/// attempt may have reached a server, so that a middleware that asked (``AdaptedRequest/afterSending(_:)``) hears it
/// even when a later attempt (a retry) failed before a byte left.
final class SendRecord: Sendable {
    private let state = Locked<(withheld: [WithheldCredential], mayHaveArrived: Bool)>(([], false))

    /// Adds `credential`, once however many attempts withhold it.
    func record(_ credential: WithheldCredential) {
        state.withLock { state in
            if !state.withheld.contains(credential) { state.withheld.append(credential) }
        }
    }

    /// What was withheld, in the order it was first recorded.
    var withheld: [WithheldCredential] { state.withLock { $0.withheld } }

    /// Notes that an attempt reached the transport and may have reached its server.
    func attemptMayHaveArrived() {
        state.withLock { $0.mayHaveArrived = true }
    }

    /// Whether any attempt so far may have reached a server.
    var mayHaveArrived: Bool { state.withLock { $0.mayHaveArrived } }
}
