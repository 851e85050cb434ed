import NetworkLayerCore
import NetworkLayerSupport

/// Makes token refreshes single-flight: however many requests ask, one refresh runs per expired token.
///
/// Every finished refresh, good or bad, raises ``count``. A request notes the count before it reads its token; when
/// it then gets a 401:
/// - if the count has risen since, a refresh finished after its token was read: it retries with the new token, or
///   fails with that refresh's error, and starts nothing;
/// - otherwise it joins the refresh in flight, or starts one.
///
/// A request whose task is cancelled while it waits leaves at once with `CancellationError`; the refresh goes on for
/// the requests still waiting (and for the next ones: its token is the one they read).
final class RefreshCoordinator: Sendable {
    /// How the refresh ended, for the requests that waited for it.
    typealias Outcome = Result<Void, any Error>

    private struct State {
        var count = 0
        var lastFailure: (any Error)?
        /// Whether a refresh runs.
        var isRefreshing = false
        /// The requests waiting for the running refresh, by number.
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var lastWaiter = 0

        /// The refresh ended: counted, and every waiter handed back to be answered.
        mutating func finish(failure: (any Error)?) -> [CheckedContinuation<Void, any Error>] {
            count += 1
            lastFailure = failure
            isRefreshing = false
            defer { waiters = [:] }
            return Array(waiters.values)
        }
    }

    private let state = Locked(State())

    /// How many refreshes have finished.
    var count: Int { state.withLock { $0.count } }

    /// Refreshes unless a refresh has finished since `seen`; throws the failure of the refresh it relied on, or
    /// `CancellationError` as soon as the caller's task is cancelled.
    func refresh(unlessDoneSince seen: Int, using refresh: @escaping @Sendable () async throws -> Void) async throws {
        let id = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = Task.isCancelled
                let (known, starts) = state.withLock { state -> (Outcome?, Bool) in
                    // A caller cancelled already neither waits nor starts a refresh for nobody.
                    if cancelled { return (.failure(CancellationError()), false) }
                    if state.count > seen { return (state.lastFailure.map { .failure($0) } ?? .success(()), false) }
                    state.waiters[id] = continuation
                    defer { state.isRefreshing = true }
                    return (nil, !state.isRefreshing)
                }
                if let known { return continuation.resume(with: known) }
                if starts { start(refresh) }
                // A cancellation that came before the wait found nothing to end: end it now.
                if Task.isCancelled { leave(id) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Runs a refresh in a task of its own, which no caller's cancellation reaches, and answers every waiter.
    private func start(_ refresh: @escaping @Sendable () async throws -> Void) {
        Task { [state] in
            var failure: (any Error)?
            do {
                try await refresh()
            } catch {
                failure = AuthenticationMiddleware.RefreshFailure(underlyingError: error)
            }
            let waiters = state.withLock { $0.finish(failure: failure) }
            for waiter in waiters {
                if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
            }
        }
    }

    /// A waiter's task was cancelled: it leaves now, unless the refresh answered it already.
    private func leave(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
    }
}
