import Foundation
import NetworkLayerSupport

/// A continuation resumed once, by whichever of several answers comes first; an answer before the continuation is
/// set is kept for it.
final class OnceAnswer<Value: Sendable>: Sendable {
    /// Where the answer stands, as one state.
    private enum State {
        /// Neither the continuation nor an answer yet.
        case empty
        /// The continuation waits for the first answer.
        case waiting(CheckedContinuation<Value, Never>)
        /// The first answer came before the continuation.
        case answered(Value)
        /// The continuation was resumed: later answers are ignored.
        case done
    }

    private let state = Locked(State.empty)

    /// Sets the continuation; resumes it at once when an answer came first.
    func set(_ continuation: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { state in
            switch state {
            case .empty:
                state = .waiting(continuation)
                return nil
            case .answered(let answer):
                state = .done
                return answer
            case .waiting, .done:
                preconditionFailure("OnceAnswer's continuation is set once")
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Gives an answer: the first one resumes the continuation (or waits for it); later ones are ignored.
    func give(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .answered(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        continuation?.resume(returning: value)
    }

    /// Gives `value` once `seconds` have passed, unless another answer came first: a deadline, kept by the
    /// deadline monitor every send's deadline is kept by (none for no bound, ``Swift/Double/isBoundedTimeout``).
    func give(_ value: Value, after seconds: TimeInterval) {
        guard seconds.isBoundedTimeout else { return }
        _ = DeadlineMonitor.forNetworks.watch(seconds: seconds) { self.give(value) }
    }
}
