#if os(Linux)
    /// Which transfers an event loop holds, the sends its host pool let go to it that have yet to be handed to
    /// libcurl, and whether it has stopped, as one value that whoever drives the loop changes (``CurlMulti``).
    ///
    /// A held transfer is found by its send's number and by its easy handle alike: both are set, and forgotten,
    /// together. A hand-over of the sends the pool let go runs once at a time: one that lets others go (a send that
    /// failed to start frees its connection) adds them to the list being handed over rather than start another.
    /// Generic over the transfer, its handle and what the pool let go, so that it is tested without libcurl.
    struct CurlLoopLedger<Transfer: AnyObject, Handle: Hashable, Waiter> {
        private var held: [Int: (transfer: Transfer, handle: Handle)] = [:]
        private var idByHandle: [Handle: Int] = [:]
        /// What the pool let go to the loop, in order, and how far the hand-over in progress got; `nil` while none is
        /// in progress.
        private var handOver: (waiters: [Waiter], next: Int)?
        /// Whether the loop has stopped: it holds nothing and takes nothing more.
        private(set) var isStopped = false

        /// Holds `transfer`, its send numbered `id` and its easy handle `handle`; a transfer holds its place from
        /// one hop to the next.
        mutating func hold(_ transfer: Transfer, id: Int, handle: Handle) {
            precondition(!isStopped, "a stopped loop holds no transfer")
            if let current = held[id] {
                precondition(current.transfer === transfer && current.handle == handle, "two transfers for one send")
            }
            precondition(idByHandle[handle].map { $0 == id } ?? true, "one easy handle for two sends")
            held[id] = (transfer, handle)
            idByHandle[handle] = id
        }

        /// The transfer held for send `id`.
        func transfer(_ id: Int) -> Transfer? { held[id]?.transfer }

        /// The transfer held whose easy handle is `handle`.
        func transfer(handle: Handle) -> Transfer? { idByHandle[handle].flatMap { held[$0]?.transfer } }

        /// Whether `transfer` is the one held for send `id`.
        func holds(_ transfer: Transfer, id: Int) -> Bool { held[id]?.transfer === transfer }

        /// Every transfer held, read in place (a loop's turn reads them without making a list).
        var transfers: some Collection<Transfer> {
            held.values.lazy.map(\.transfer)
        }

        /// Forgets `transfer` if it is the one held for send `id`; whether it was.
        @discardableResult
        mutating func forget(_ transfer: Transfer, id: Int) -> Bool {
            guard let current = held[id], current.transfer === transfer else { return false }
            held[id] = nil
            idByHandle[current.handle] = nil
            return true
        }

        /// Stops the loop: every transfer it held, to end, and nothing held any more.
        mutating func stop() -> [Transfer] {
            isStopped = true
            defer {
                held = [:]
                idByHandle = [:]
            }
            return Array(transfers)
        }

        /// Adds what the pool let go to the list to hand over; whether the caller hands the list over now (`false`
        /// while a hand-over is in progress: that one takes them in turn).
        mutating func admit(_ waiters: [Waiter]) -> Bool {
            guard var current = handOver else {
                handOver = (waiters, 0)
                return true
            }
            handOver = nil  // the list grows in place, not copied
            current.waiters += waiters
            handOver = current
            return false
        }

        /// The next send of the hand-over in progress; `nil` when none is left, which ends it.
        mutating func nextAdmitted() -> Waiter? {
            guard var current = handOver else { preconditionFailure("no hand-over is in progress") }
            guard current.next < current.waiters.count else {
                handOver = nil
                return nil
            }
            let waiter = current.waiters[current.next]
            current.next += 1
            handOver = current
            return waiter
        }
    }
#endif
