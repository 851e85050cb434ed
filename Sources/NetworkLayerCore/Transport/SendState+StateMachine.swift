import Foundation
import NetworkLayerSupport

extension SendState {
    /// The life of one send as a value: who waits for it, what runs for it, and who ended it first.
    ///
    /// Each event (the caller attaching, work starting, a deadline watch, the end) is a mutating method that
    /// answers what to do once the lock is released; the states hold the caller they owe, so the end hands it back
    /// with the work to cancel and the watch to stop. An event that cannot happen in a state (a second caller, a
    /// second watch) is a `preconditionFailure`, so a broken invariant fails a test instead of leaving a caller
    /// suspended.
    ///
    /// `Caller` is what resumes the caller: a continuation in ``SendState``, a plain token in the tests and the
    /// fuzz target, which count how often each is resumed.
    @usableFromInline struct StateMachine<Caller: Sendable>: Sendable {
        /// The deadline watch of a send: its id in its monitor.
        @usableFromInline typealias Deadline = (id: Int, monitor: DeadlineMonitor)

        /// Where the send is; each case holds what it owes.
        @usableFromInline enum State: Sendable {
            /// The caller has not attached yet; the work and the deadline watch may already be known.
            case starting(work: Work?, deadline: Deadline?)
            /// The caller waits for the outcome.
            case running(caller: Caller, work: Work?, deadline: Deadline?)
            /// The send ended before the caller attached: the caller gets `outcome` when it does.
            case endedBeforeCaller(Outcome)
            /// The send ended and its caller has its outcome; nothing changes any more.
            case ended
        }

        /// What ending the send leaves to do once the lock is released.
        @usableFromInline struct EndActions: Sendable {
            /// The caller to resume, unless it attaches later.
            @usableFromInline let caller: Caller?
            /// What the caller is resumed with.
            @usableFromInline let outcome: Outcome
            /// The work to cancel, if the send ended before its work did.
            @usableFromInline let work: Work?
            /// The deadline watch to stop.
            @usableFromInline let deadline: Deadline?

            /// What ending a send leaves to do.
            @inlinable init(caller: Caller?, outcome: Outcome, work: Work?, deadline: Deadline?) {
                self.caller = caller
                self.outcome = outcome
                self.work = work
                self.deadline = deadline
            }
        }

        /// Where the send is.
        @usableFromInline private(set) var state: State = .starting(work: nil, deadline: nil)

        /// A send not yet started.
        @inlinable init() {}

        /// Whether the send has ended; nothing about it changes afterwards.
        @inlinable var hasEnded: Bool {
            switch state {
            case .starting, .running: false
            case .endedBeforeCaller, .ended: true
            }
        }

        /// The caller attaches; answers the outcome to resume it with at once if the send already ended.
        @inlinable mutating func attach(_ caller: Caller) -> Outcome? {
            switch state {
            case .starting(let work, let deadline):
                state = .running(caller: caller, work: work, deadline: deadline)
                return nil
            case .endedBeforeCaller(let outcome):
                state = .ended
                return outcome
            case .running, .ended:
                preconditionFailure("a second caller attached to one send")
            }
        }

        /// Work now runs for the send (the first, or the next hop of a redirect chain); false if the send already
        /// ended, in which case the work must not start.
        @inlinable mutating func run(_ work: Work) -> Bool {
            switch state {
            case .starting(_, let deadline):
                state = .starting(work: work, deadline: deadline)
                return true
            case .running(let caller, _, let deadline):
                state = .running(caller: caller, work: work, deadline: deadline)
                return true
            case .endedBeforeCaller, .ended:
                return false
            }
        }

        /// The deadline is watched; false if the send already ended, in which case the caller stops the watch.
        @inlinable mutating func watch(_ deadline: Deadline) -> Bool {
            switch state {
            case .starting(let work, nil):
                state = .starting(work: work, deadline: deadline)
                return true
            case .running(let caller, let work, nil):
                state = .running(caller: caller, work: work, deadline: deadline)
                return true
            case .starting, .running:
                preconditionFailure("a second deadline watch for one send")
            case .endedBeforeCaller, .ended:
                return false
            }
        }

        /// Ends the send with `outcome`, unless it already ended (then nil: the first end won).
        ///
        /// - Parameter workFinished: Whether the work has completed by itself; otherwise it is handed back for
        ///   cancelling.
        @inlinable mutating func end(with outcome: Outcome, workFinished: Bool) -> EndActions? {
            switch state {
            case .starting(let work, let deadline):
                state = .endedBeforeCaller(outcome)
                return EndActions(caller: nil, outcome: outcome, work: workFinished ? nil : work, deadline: deadline)
            case .running(let caller, let work, let deadline):
                state = .ended
                return EndActions(caller: caller, outcome: outcome, work: workFinished ? nil : work, deadline: deadline)
            case .endedBeforeCaller, .ended:
                return nil
            }
        }
    }
}
