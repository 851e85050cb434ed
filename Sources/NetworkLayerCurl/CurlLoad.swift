import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// How many sends a loop runs or has yet to start, counted by callers and by whoever drives the loop; how many of
    /// them their callers started, and how many were answered as their bodies completed.
    final class CurlLoad: Sendable {
        let sends = Atomic<Int>(0)
        let startedByCallers = Atomic<Int>(0)
        let answeredEarly = Atomic<Int>(0)
        /// How many turns the loop's thread has taken, for tests (a loop that spins takes thousands a second).
        let turns = Atomic<Int>(0)

        /// Whether one send, and no other, runs on the loop or waits for it.
        var holdsOneSend: Bool { sends.load(ordering: .relaxed) == 1 }

        /// Counts a send out of the loop.
        func leave() {
            sends.subtract(1, ordering: .relaxed)
        }

        /// Counts a send out of the loop whose caller was answered as its body completed.
        func leaveAnsweredEarly() {
            answeredEarly.add(1, ordering: .relaxed)
            leave()
        }
    }
#endif
