import NetworkLayerSupport

/// What one send left behind in every attempt of it, shared by the copies of its ``RequestContext``: the credentials
/// withheld, so that a middleware earlier in the chain (a logger) sees what a later one withheld; and whether any
/// attempt may have reached a server, told once the send ends to what asked (a ``CredentialScope`` that a request
/// may fix), even when a later attempt (a retry) failed before a byte left.
final class SendRecord: Sendable {
    private struct State {
        var withheld: [WithheldCredential] = []
        var mayHaveArrived = false
        /// What waits for the end of the send; `nil` once it has ended.
        var endWatchers: [@Sendable (_ mayHaveArrived: Bool) -> Void]? = []
    }

    private let state = Locked(State())
    /// Whether a chain ends the send (``MiddlewareChain``'s contexts): a context made by hand, as a test of a
    /// middleware does, has no end to wait for.
    let endsWithAChain: Bool

    init(endsWithAChain: Bool) {
        self.endsWithAChain = endsWithAChain
    }

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

    /// Calls `watcher` once the send ends (at once if it has, or if no chain will end it), with whether any attempt
    /// may have reached a server.
    func whenSendEnds(_ watcher: @escaping @Sendable (_ mayHaveArrived: Bool) -> Void) {
        let ended: Bool? = state.withLock { state in
            guard endsWithAChain else { return state.mayHaveArrived }
            guard state.endWatchers != nil else { return state.mayHaveArrived }
            state.endWatchers?.append(watcher)
            return nil
        }
        if let ended { watcher(ended) }
    }

    /// Ends the send: tells every watcher, once, outside the lock. The chain calls it when its run ends.
    func sendEnded() {
        let (watchers, arrived) = state.withLock { state in
            defer { state.endWatchers = nil }
            return (state.endWatchers ?? [], state.mayHaveArrived)
        }
        for watcher in watchers { watcher(arrived) }
    }
}
