#if os(Linux)
    import Testing

    @testable import NetworkLayerCurl

    /// `CurlLoopLedger` without libcurl: transfers held by number and handle together, one hand-over at a time, and a
    /// stop that hands back everything held.
    @Suite("CurlLoopLedger: what a loop holds, and its hand-overs")
    struct CurlLoopLedgerTests {
        final class Transfer {}
        typealias Ledger = CurlLoopLedger<Transfer, Int, String>

        @Test("A transfer is found by its send and by its handle, from one hop to the next, until it is forgotten")
        func holdAndForget() {
            var ledger = Ledger()
            let first = Transfer()
            let second = Transfer()
            ledger.hold(first, id: 1, handle: 10)
            ledger.hold(second, id: 2, handle: 20)
            ledger.hold(first, id: 1, handle: 10)  // its next hop
            #expect(ledger.transfer(1) === first && ledger.transfer(handle: 20) === second)
            #expect(ledger.holds(first, id: 1) && !ledger.holds(second, id: 1))
            let wrongOne = ledger.forget(second, id: 1)
            #expect(!wrongOne, "only the transfer held for the send is forgotten")
            let forgotten = ledger.forget(first, id: 1)
            #expect(forgotten)
            #expect(ledger.transfer(1) == nil && ledger.transfer(handle: 10) == nil)
            let again = ledger.forget(first, id: 1)
            #expect(!again, "forgotten once")
            // The handle goes back to the idle ones, and the next send's transfer takes it.
            let third = Transfer()
            ledger.hold(third, id: 3, handle: 10)
            #expect(ledger.transfer(handle: 10) === third)
            #expect(ledger.transfers.count == 2)
        }

        @Test("Stopping hands back every transfer held, holds nothing after, and says so")
        func stop() {
            var ledger = Ledger()
            let transfers = [Transfer(), Transfer(), Transfer()]
            for (index, transfer) in transfers.enumerated() { ledger.hold(transfer, id: index, handle: index * 10) }
            let ended = ledger.stop()
            #expect(ended.count == 3 && transfers.allSatisfy { transfer in ended.contains { $0 === transfer } })
            #expect(ledger.isStopped && ledger.transfers.isEmpty && ledger.transfer(handle: 0) == nil)
        }

        @Test("One hand-over at a time: what is let go during one joins it, in order, and the next starts afresh")
        func handOver() {
            var ledger = Ledger()
            let first = ledger.admit(["a", "b"])
            #expect(first, "the first caller hands over")
            var handed: [String] = []
            while let waiter = ledger.nextAdmitted() {
                handed.append(waiter)
                // Handing over "a" fails and lets "c" go: it joins this hand-over rather than start another.
                if waiter == "a" {
                    let joins = !ledger.admit(["c"])
                    #expect(joins)
                }
            }
            #expect(handed == ["a", "b", "c"])
            let next = ledger.admit(["d"])
            #expect(next, "the hand-over ended: the next caller hands over")
            let d = ledger.nextAdmitted()
            let end = ledger.nextAdmitted()
            #expect(d == "d" && end == nil)
        }

        @Test("What cannot happen stops the process: a transfer or handle held twice or late, or no hand-over")
        func whatCannotHappenStopsTheProcess() async {
            await #expect(processExitsWith: .failure, "two transfers for one send") {
                var ledger = Ledger()
                ledger.hold(Transfer(), id: 1, handle: 10)
                ledger.hold(Transfer(), id: 1, handle: 10)
            }
            await #expect(processExitsWith: .failure, "one easy handle for two sends") {
                var ledger = Ledger()
                ledger.hold(Transfer(), id: 1, handle: 10)
                ledger.hold(Transfer(), id: 2, handle: 10)
            }
            await #expect(processExitsWith: .failure, "a stopped loop holds no transfer") {
                var ledger = Ledger()
                _ = ledger.stop()
                ledger.hold(Transfer(), id: 1, handle: 10)
            }
            await #expect(processExitsWith: .failure, "no hand-over in progress") {
                var ledger = Ledger()
                _ = ledger.nextAdmitted()
            }
        }
    }
#endif
