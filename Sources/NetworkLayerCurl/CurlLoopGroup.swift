import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// A transport's loops and the pool that places its sends on them.
    struct CurlLoopGroup: Sendable {
        let loops: [CurlEventLoop]
        let pool: CurlPool

        /// Places a new send: on the least busy loop with a free connection to its host, or in the pool until a
        /// loop frees one; a send that comes after the transport was shut down is answered at once.
        func place(_ submission: CurlSubmission) {
            let placement = pool.withLock {
                $0.place(submission.id, .send(submission), to: submission.placement.host, loads: loops.lazy.map(\.load))
            }
            switch placement {
            case .run(let index):
                submission.placement.place(onLoop: index)
                loops[index].submit(submission)
            case .wait:
                break
            case .refused:
                CurlMulti.refuse(submission)
            }
        }

        /// Drops a send whose caller has been answered: out of the pool if it waits there, as a new send (then it was
        /// never on a loop) or as a follow-up hop (a retry or a redirect to the same host, whose transfer the pool's
        /// withdrawal leaves on its loop); then off its loop, if it was placed on one, which frees its transfer.
        func cancel(_ id: Int, _ placement: CurlSendPlacement) {
            if case .send? = pool.withLock({ $0.withdraw(id, from: placement.host) })?.item { return }
            if let index = placement.loop { loops[index].cancel(id) }
        }

        /// What drops the send `placement` places, for its deadline and its cancellation.
        func canceller(for placement: CurlSendPlacement) -> @Sendable (Int) -> Void {
            { id in cancel(id, placement) }
        }

        /// Lets a paused streamed transfer go on, on its loop (one not placed yet has not started).
        func resume(_ id: Int, _ placement: CurlSendPlacement) {
            if let index = placement.loop { loops[index].resume(id) }
        }

        /// How many sends run on the loops or wait for them: the pool's count of those it placed covers a send let go
        /// to a loop that has yet to count it, the loops' that of a send answered early that libcurl still finishes.
        var sendsInFlight: Int {
            let (running, waiting) = pool.withLock { ($0.runningCount, $0.waitingCount) }
            return max(running, loops.reduce(0) { $0 + $1.load }) + waiting
        }

        /// Places no more sends, answers those waiting in the pool, and stops every loop.
        func stop() {
            for waiter in pool.withLock({ $0.close() }) {
                if case .send(let submission) = waiter.item { CurlMulti.refuse(submission) }
            }
            for loop in loops { loop.shutDown() }
        }

        /// Returns once every loop's thread has returned.
        func stopped() async {
            for loop in loops { await loop.stopped() }
        }
    }

    /// The transport's pool of connections to each host, shared by its loops (``CurlHostPool``).
    typealias CurlPool = Locked<CurlHostPool<CurlWaiting>>

    /// What waits in the pool: a new send, which runs on the first loop with a connection to its host, or a
    /// follow-up hop, whose transfer is on its loop already.
    enum CurlWaiting: Sendable {
        case send(CurlSubmission)
        case hop
    }
#endif
