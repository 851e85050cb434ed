import NetworkLayerCore
import NetworkLayerSupport

/// Makes token refreshes single-flight: however many requests ask, one refresh runs per expired token.
///
/// Every finished refresh, good or bad, raises ``count``. A request notes the count before it reads its token; when
/// it then gets a 401:
/// - if the count has risen since, a refresh finished after its token was read: it retries with the new token, or
///   fails with that refresh's error, and starts nothing;
/// - otherwise it joins the refresh in flight, or starts one.
final class RefreshCoordinator: Sendable {
    private struct State {
        var count = 0
        var lastFailure: (any Error)?
        var inFlight: Task<Void, any Error>?

        mutating func finish(failure: (any Error)?) {
            count += 1
            lastFailure = failure
            inFlight = nil
        }
    }

    private let state = Locked(State())

    /// How many refreshes have finished.
    var count: Int { state.withLock { $0.count } }

    /// Refreshes unless a refresh has finished since `seen`; throws the failure of the refresh it relied on.
    func refresh(unlessDoneSince seen: Int, using refresh: @escaping @Sendable () async throws -> Void) async throws {
        let running: Task<Void, any Error>? = try state.withLock { state in
            if state.count > seen {
                if let failure = state.lastFailure { throw failure }
                return nil
            }
            if let inFlight = state.inFlight { return inFlight }
            let task = Task { [state = self.state] in
                do {
                    try await refresh()
                    state.withLock { $0.finish(failure: nil) }
                } catch {
                    let failure = AuthenticationMiddleware.RefreshFailure(underlyingError: error)
                    state.withLock { $0.finish(failure: failure) }
                    throw failure
                }
            }
            state.inFlight = task
            return task
        }
        try await running?.value
    }
}
