import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// Runs `operation` against a deadline and returns the moment either ends: its result if it finishes within
    /// `seconds`, the deadline error for `request` if not, and `CancellationError` if the caller is cancelled first.
    ///
    /// The operation runs in a task of its own, cancelled when the deadline or the caller's cancellation wins, and
    /// nobody waits for it to notice: a transport or a middleware that ignores cancellation cannot hold the caller
    /// past the deadline. The send's life is the transports' own ``SendState``, its deadline watched by one
    /// ``DeadlineMonitor`` for every network.
    static func race<Reply: Sendable>(
        _ request: URLRequest,
        within seconds: TimeInterval,
        _ operation: @escaping @Sendable () async throws -> Reply
    ) async throws -> Reply {
        try await SendState<Task<Void, Never>, Reply>.perform(
            request, within: seconds, in: .forNetworks, cancel: { $0.cancel() },
            start: { state in
                let work = Task {
                    let outcome: SendState<Task<Void, Never>, Reply>.Outcome
                    do {
                        outcome = .success(try await operation())
                    } catch {
                        outcome = .failure(error)
                    }
                    SendState.finish(state, with: outcome)
                }
                if !state.withLock({ $0.run(work) }) { work.cancel() }
            })
    }
}
