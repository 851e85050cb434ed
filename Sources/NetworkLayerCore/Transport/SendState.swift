import Foundation
public import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// Where one send of a transport is in its life: the caller waiting for it, the work running for it (a data task, a
/// libcurl transfer), its deadline watch.
///
/// Whoever learns the outcome first ends the send: the work's completion, the caller's cancellation, the deadline,
/// the size cap or an authentication challenge. Ending resumes the caller at once; the work, if it must stop, is
/// handed to the transport afterwards, outside the lock, to be cancelled where nothing waits for it.
///
/// Its whole mutable state is one `StateMachine` value, whose states hold the caller they owe; each method is an
/// event of that machine, and what it answers (``EndActions``, an outcome, whether work may start) is carried out by the
/// caller after it releases the lock.
///
/// `Reply` is what a send ends with: the body and the response, built (``URLSessionTransport``, ``Network``'s race) or
/// still in parts (`CurlTransport`, see ``ResponseHead``).
///
/// Public only to transports that import the `TransportKit` SPI: `@inlinable` code of a `package` type is neither
/// checked nor specialized in another module, so `CurlTransport` ran ``perform(_:within:in:cancel:start:)``
/// unspecialized, looking up the generic metadata of its state on every send.
@_spi(TransportKit) public struct SendState<Work: Sendable, Reply: Sendable>: Sendable {
    /// The caller waiting for the send.
    public typealias Continuation = CheckedContinuation<Reply, any Error>
    /// What the send ends with.
    public typealias Outcome = Result<Reply, any Error>

    /// What ending a send leaves to do once the lock is released.
    public struct EndActions {
        /// The caller to resume, unless it attached after the end.
        public let continuation: Continuation?
        /// What the caller is resumed with.
        public let outcome: Outcome
        /// The work to cancel, if the send ended before its work did.
        public let work: Work?
        /// The deadline watch to stop.
        public let deadline: (id: Int, monitor: DeadlineMonitor)?

        /// What ending a send leaves to do.
        @inlinable public init(
            continuation: Continuation?,
            outcome: Outcome,
            work: Work?,
            deadline: (id: Int, monitor: DeadlineMonitor)?
        ) {
            self.continuation = continuation
            self.outcome = outcome
            self.work = work
            self.deadline = deadline
        }
    }

    /// A send not yet started.
    @inlinable public init() {}

    /// The send's whole mutable state: one machine, whose caller is the continuation.
    @usableFromInline var machine = StateMachine<Continuation>()

    /// Whether the send has ended; nothing about it changes afterwards.
    @inlinable public var hasEnded: Bool { machine.hasEnded }

    /// Attaches the caller; returns the outcome to resume it with at once if the send already ended.
    @inlinable public mutating func attach(_ continuation: Continuation) -> Outcome? {
        machine.attach(continuation)
    }

    /// Records the work now running for the send (the first, or the next hop of a redirect chain); returns false
    /// if the send already ended, in which case the work must not start.
    @inlinable public mutating func run(_ work: Work) -> Bool {
        machine.run(work)
    }

    /// Keeps the deadline watch so that ending can stop it; returns false if the send already ended, in which case
    /// the caller stops the watch itself.
    @inlinable public mutating func watch(_ id: Int, in monitor: DeadlineMonitor) -> Bool {
        machine.watch((id, monitor))
    }

    /// Ends the send with `outcome`, unless it already ended.
    ///
    /// - Parameter workFinished: Whether the work has completed by itself; otherwise it is handed back for
    ///   cancelling.
    @inlinable public mutating func end(with outcome: Outcome, workFinished: Bool) -> EndActions? {
        machine.end(with: outcome, workFinished: workFinished).map { ending in
            EndActions(
                continuation: ending.caller, outcome: ending.outcome, work: ending.work, deadline: ending.deadline)
        }
    }
}

extension SendState {
    /// Ends the send in `state` with `outcome`, its work having finished by itself (nothing is left to cancel),
    /// unless it already ended: stops its deadline watch and resumes the caller now.
    @inlinable public static func finish(_ state: Locked<SendState>, with outcome: Outcome) {
        end(state, with: outcome, workFinished: true, cancel: { _ in })
    }

    /// Ends the send in `state` with `outcome` unless it already ended: stops its deadline watch, resumes the caller
    /// now, and hands the work, unless it finished by itself, to `cancel`.
    @inlinable public static func end(
        _ state: Locked<SendState>,
        with outcome: Outcome,
        workFinished: Bool = false,
        cancel: (Work) -> Void
    ) {
        guard let ending = state.withLock({ $0.end(with: outcome, workFinished: workFinished) }) else { return }
        if let deadline = ending.deadline { deadline.monitor.cancel(deadline.id) }
        ending.continuation?.resume(with: ending.outcome)
        if let work = ending.work { cancel(work) }
    }

    /// Ends the send in `state` with the deadline error for `request` once `seconds` have passed, counting from now,
    /// and hands its work, if still running, to `cancel`.
    @inlinable public static func watchDeadline(
        _ state: Locked<SendState>,
        of request: URLRequest,
        within seconds: Double,
        in monitor: DeadlineMonitor,
        cancel: @escaping @Sendable (Work) -> Void
    ) {
        let watch = monitor.watch(seconds: seconds) {
            end(state, with: .failure(NetworkError.deadlineExceeded(after: seconds, for: request)), cancel: cancel)
        }
        if !state.withLock({ $0.watch(watch, in: monitor) }) { monitor.cancel(watch) }
    }
}

extension SendState {
    /// Runs one send from start to end: attaches the caller, watches the deadline, lets `start` begin the work, and
    /// ends the send with `CancellationError` when the caller's task is cancelled. Every transport and the overall
    /// deadline of ``Network`` send through it.
    ///
    /// - Parameters:
    ///   - request: The request, for the deadline error.
    ///   - seconds: The deadline, from now.
    ///   - monitor: The monitor that watches the deadline.
    ///   - cancel: Stops work that is still running when the send ends without it; called outside the lock.
    ///   - start: Begins the work and records it with ``run(_:)``; called once, unless the send already ended.
    @inlinable public static func perform(
        _ request: URLRequest,
        within seconds: Double,
        in monitor: DeadlineMonitor,
        cancel: @escaping @Sendable (Work) -> Void,
        start: (Locked<SendState>) -> Void
    ) async throws -> Reply {
        let state = Locked(SendState())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let outcome = state.withLock({ $0.attach(continuation) }) {
                    return continuation.resume(with: outcome)
                }
                watchDeadline(state, of: request, within: seconds, in: monitor, cancel: cancel)
                start(state)
            }
        } onCancel: {
            end(state, with: .failure(CancellationError()), cancel: cancel)
        }
    }
}
