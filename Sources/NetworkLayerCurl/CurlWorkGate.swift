#if os(Linux)
    import Synchronization

    /// The sends a ``CurlTransport`` has under way and whether it still takes them, in one atomic word: the count in the
    /// low bits, and a flag once a shutdown has begun. Taking a send on and ending it are one atomic operation each, with
    /// no lock that concurrent callers take turns for; ``CurlTransportLifecycle`` hears only the moment the last send of
    /// a closed gate ends.
    ///
    /// Exactly one party sees the gate empty and closed: ``close()`` when no send was under way, otherwise the
    /// ``leave()`` that ended the last one.
    final class CurlWorkGate: Sendable {
        private let word = Atomic<Int>(0)
        /// The flag of a closed gate, above any count.
        private static let closed = 1 << 62

        /// A send asks to start: whether it may (the gate is open), counted if so.
        func enter() -> Bool {
            var current = word.load(ordering: .relaxed)
            while current & Self.closed == 0 {
                let (exchanged, original) = word.compareExchange(
                    expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
                if exchanged { return true }
                current = original
            }
            return false
        }

        /// A send taken by ``enter()`` ended: whether it was the last of a closed gate.
        func leave() -> Bool {
            let before = word.subtract(1, ordering: .acquiringAndReleasing).oldValue
            guard before & ~Self.closed > 0 else { preconditionFailure("\(#function): no send was under way") }
            return before == Self.closed + 1
        }

        /// Closes the gate: no send is taken from now on. Returns how many were under way as it closed (their last
        /// ``leave()`` then says so); closing again returns 0.
        func close() -> Int {
            let before = word.bitwiseOr(Self.closed, ordering: .acquiringAndReleasing).oldValue
            return before & Self.closed == 0 ? before : 0
        }

        /// Whether sends are taken.
        var isOpen: Bool { word.load(ordering: .relaxed) & Self.closed == 0 }
    }
#endif
