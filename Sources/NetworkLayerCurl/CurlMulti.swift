import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// A loop's multi handle, its transfers in flight and its idle easy handles, touched only by whoever drives the
    /// loop (``CurlDriver``). Where each transfer is lives in values it feeds: which transfers the loop holds, in
    /// its ``CurlLoopLedger``; each one's hop, in its ``CurlHop``; its host's connections, in the ``CurlHostPool``.
    final class CurlMulti {
        private let multi: UnsafeMutableRawPointer
        private let poller: OpaquePointer
        private let rules: CurlTransferRules
        /// The trusted authorities' PEM blob, copied once here for every transfer to point at (a copy per transfer
        /// would cost one allocation and copy of the blob per request, the whole system bundle when it is in it);
        /// freed after every easy handle, in `deinit`.
        private let authorities: UnsafeMutableRawBufferPointer?
        /// The transfers the loop holds, the sends the pool let go to it, and whether it has stopped.
        private var ledger = CurlLoopLedger<CurlTransfer, UnsafeMutableRawPointer, CurlHostPool<CurlWaiting>.Waiter>()
        private var idle: [CurlEasyHandle] = []
        private let connections: CurlConnections
        private let multiplexingNews = CurlMultiplexingNews()
        /// Which sends to each host run on which loop and which wait for a connection, shared by the transport's
        /// loops, so that libcurl never keeps a send waiting itself; this loop is number `index` there.
        private let pool: CurlPool
        private let index: Int
        /// The buffers streamed bodies join their reads into, reused from chunk to chunk.
        private let chunkBuffers = ChunkBuffers(capacity: CurlTransfer.streamChunkSize)
        /// The loop's count of sends, which every send leaves once: ended, answered as its body completed, dropped,
        /// or never started.
        private let load: CurlLoad
        /// When the loop's current wait ends by itself, in `DispatchTime` nanoseconds; set before each wait.
        private var waitEnds: UInt64 = 0
        /// The multi handle, the poller and the authorities' blob: held while the loop runs, freed once it stopped.
        private enum Resources { case held, freed }

        /// Whether the loop's libcurl resources are held or freed.
        private var resources = Resources.held
        /// How many idle easy handles are kept for reuse.
        private static let idleLimit = 32
        /// The longest wait, in milliseconds, when libcurl has no timer set.
        private static let longestWait: Int32 = 1000
        /// How many times one turn lets libcurl run its due timers and start follow-up hops.
        private static let settleLimit = 16

        init(
            multi: UnsafeMutableRawPointer, poller: OpaquePointer, rules: CurlTransferRules, pool: CurlPool,
            index: Int, load: CurlLoad
        ) {
            self.multi = multi
            self.pool = pool
            self.index = index
            self.poller = poller
            self.rules = rules
            self.load = load
            connections = CurlConnections { socket in
                let serial = nl_curl_poller_socket_serial(poller, socket)
                return serial == 0 ? nil : UInt64(serial)
            }
            authorities = CurlTLS.copyOfAuthorities(in: rules)
        }

        /// Frees what ``release()`` has not.
        deinit {
            release()
        }

        /// Runs after ``removeAll()``, as the loop's thread stops: frees the multi handle (which closes its
        /// connections), then its poller (which libcurl may still tell about sockets as it closes them), then the
        /// blob every easy handle pointed at. Nothing calls libcurl with them after: the inbox is closed, so no one
        /// wakes the poller, and a caller that finds the loop free sees it stopped.
        func release() {
            guard resources == .held else { return }  // freed as the loop stopped; its deinit comes after
            resources = .freed
            _ = nl_curl_multi_cleanup(multi)
            nl_curl_poller_free(poller)
            authorities?.deallocate()
        }

        /// Answers a send that a stopped loop will never run: the transport was shut down.
        static func refuse(_ submission: CurlSubmission) {
            let error = CurlTransport.shutDownError(for: submission.request)
            SendState.finish(submission.state, with: .failure(error))
            submission.stream?.fail(error)
        }

        /// Counts a transfer's send out of the loop, unless it left as its caller was answered early.
        private func sendLeft(of transfer: CurlTransfer) {
            if !transfer.hop.wasAnsweredEarly { load.leave() }
        }

        /// Lets libcurl act on a socket the poller found ready, or on its timer (`NLCURL_SOCKET_TIMEOUT`).
        func act(on socket: Int32, _ actions: Int32) {
            _ = nl_curl_poller_act(poller, socket, actions)
        }

        /// Runs libcurl's due timers (a transfer just added is due at once), hands streamed bodies what arrived, and
        /// ends or follows up every finished transfer, until nothing more is due (bounded: what is left is due at
        /// the next turn, which then does not wait).
        func settle() {
            for _ in 0..<Self.settleLimit {
                var due = 0
                while due < Self.settleLimit, nl_curl_multi_timeout(multi) == 0 {
                    act(on: NLCURL_SOCKET_TIMEOUT, 0)
                    due += 1
                }
                failUnwatched()
                flushPending()
                let learned = learnMultiplexing()
                guard collectFinished() || learned else { return }
            }
        }

        /// How long the loop may wait, in milliseconds: until libcurl's next timer, at most ``longestWait``; noted,
        /// so that a caller that starts a transfer while the loop waits knows whether to wake it.
        func prepareToWait() -> Int32 {
            let timeout = CurlLoopPlan.wait(forTimer: nl_curl_multi_timeout(multi), longest: Self.longestWait)
            waitEnds = DispatchTime.now().uptimeNanoseconds + UInt64(timeout) * 1_000_000
            return timeout
        }

        /// Starts a send on the caller's thread while the loop waits; returns false, having done nothing, when the
        /// loop has stopped. The send's socket joins the set the loop waits on; the loop is woken only if libcurl
        /// now wants its timer before the wait would end.
        func startNow(_ submission: CurlSubmission) -> Bool {
            guard !ledger.isStopped else { return false }
            start(submission)
            settle()
            let timer = nl_curl_multi_timeout(multi)
            if CurlLoopPlan.mustWake(forTimer: timer, now: DispatchTime.now().uptimeNanoseconds, waitEnds: waitEnds) {
                nl_curl_poller_wake(poller)
            }
            return true
        }

        /// Starts a send the pool placed on this loop (counted there as running), unless it ended while it waited
        /// in the inbox or the pool.
        func start(_ submission: CurlSubmission) {
            guard !submission.state.withLock({ $0.hasEnded }) else {
                load.leave()
                handOver(leavePool(submission.placement.host, multiplexes: nil))
                return
            }
            guard let easy = idle.popLast() ?? CurlEasyHandle() else {
                load.leave()
                handOver(leavePool(submission.placement.host, multiplexes: nil))
                let error = NetworkError.transport(
                    .other, underlyingError: URLError(.unknown, description: "curl_easy_init failed"))
                return SendState.finish(submission.state, with: .failure(error))
            }
            begin(
                CurlTransfer(
                    submission, rules: rules, easy: easy, authorities: authorities.map(UnsafeRawBufferPointer.init),
                    connections: connections, multiplexingNews: multiplexingNews, chunkBuffers: chunkBuffers,
                    load: load),
                placed: true)
        }

        /// Sets up the transfer's current hop and hands it to libcurl: at once for a first hop the pool placed here
        /// (`placed`), otherwise once the pool has a connection of this loop for its host.
        private func begin(_ transfer: CurlTransfer, placed: Bool = false) {
            if let error = transfer.configure() {
                recycle(transfer)
                if placed { handOver(leavePool(transfer.submission.placement.host, multiplexes: nil)) }
                return SendState.finish(transfer.state, with: .failure(error))
            }
            let id = transfer.submission.id
            ledger.hold(transfer, id: id, handle: transfer.easy.pointer)
            if placed || pool.withLock({ $0.admit(id, .hop, to: transfer.queuedHost, onLoop: index) }) {
                run(transfer)
            } else {
                transfer.hop.waitForConnection()
            }
        }

        /// Notes in the pool that a send to `host` on this loop left libcurl; the sends that run here now.
        private func leavePool(_ host: String, multiplexes: Bool?) -> [CurlHostPool<CurlWaiting>.Waiter] {
            pool.withLock { $0.leave(host, fromLoop: index, multiplexes: multiplexes) }
        }

        /// Hands a configured hop to libcurl.
        private func run(_ transfer: CurlTransfer) {
            transfer.hop.stopWaitingForConnection()
            _ = nl_curl_easy_open_sockets_through(transfer.easy.pointer, poller)
            let code = nl_curl_multi_add_handle(multi, transfer.easy.pointer)
            if code != 0 { fail(transfer, because: "curl_multi_add_handle failed (CURLMcode \(code))") }
        }

        /// Takes a hop out of libcurl, or out of the pool, and hands libcurl the sends to its host that may go
        /// now; returns whether it started any.
        @discardableResult
        private func remove(_ transfer: CurlTransfer) -> Bool {
            if transfer.hop.isWaitingForConnection {
                transfer.hop.stopWaitingForConnection()
                _ = pool.withLock { $0.withdraw(transfer.submission.id, from: transfer.queuedHost) }
                return false
            }
            _ = nl_curl_multi_remove_handle(multi, transfer.easy.pointer)
            return handOver(leavePool(transfer.queuedHost, multiplexes: transfer.replyMultiplexes))
        }

        /// Lets the sends that wait for hosts whose replies came over HTTP/2 during this turn share their connection;
        /// returns whether it started any.
        private func learnMultiplexing() -> Bool {
            var started = false
            for host in multiplexingNews.take()
            where handOver(pool.withLock({ $0.learnMultiplexing(of: host, onLoop: index) })) {
                started = true
            }
            return started
        }

        /// Hands libcurl the sends the pool let go to this loop (counted as running here): a new send starts, a
        /// follow-up hop runs; returns whether there were any. A send that ended while it waited (its cancellation
        /// still on its way) is not sent: its turn goes to the next one. Hand-overs that let others go (a failed one)
        /// add them to the list rather than nest.
        @discardableResult
        private func handOver(_ next: [CurlHostPool<CurlWaiting>.Waiter]) -> Bool {
            guard !next.isEmpty else { return false }
            guard admit(next) else { return true }
            while let waiter = ledger.nextAdmitted() {
                switch waiter.item {
                case .send(let submission):
                    submission.placement.place(onLoop: index)
                    load.sends.add(1, ordering: .relaxed)
                    start(submission)
                case .hop:
                    if let transfer = ledger.transfer(waiter.id) {
                        if transfer.state.withLock({ $0.hasEnded }) {
                            admit(leavePool(transfer.queuedHost, multiplexes: nil))
                            recycle(transfer)
                        } else {
                            run(transfer)
                        }
                    }
                }
            }
            return true
        }

        /// Notes hops the pool let go as no longer waiting (a removal before their hand-over then counts them as
        /// running) and lists every send let go for the hand-over; whether the caller hands them over now (none
        /// is being handed over: a hand-over that lets others go adds them to its list rather than nest).
        @discardableResult
        private func admit(_ waiters: [CurlHostPool<CurlWaiting>.Waiter]) -> Bool {
            for waiter in waiters {
                if case .hop = waiter.item { ledger.transfer(waiter.id)?.hop.stopWaitingForConnection() }
            }
            return ledger.admit(waiters)
        }

        /// Ends a transfer that libcurl cannot run: takes it out of libcurl, if it is there, and fails its send.
        private func fail(_ transfer: CurlTransfer, because reason: String) {
            remove(transfer)
            transfer.flushPending()
            recycle(transfer)
            let error = NetworkError.transport(.other, underlyingError: URLError(.unknown, description: reason))
            SendState.finish(transfer.state, with: .failure(error))
            transfer.submission.stream?.fail(error)
        }

        /// Fails every transfer one of whose sockets the poller could not watch: nothing would ever wake it (and
        /// every transfer, when more failed than the poller could note: the system is out of resources).
        private func failUnwatched() {
            let reason = "the event loop could not watch the transfer's socket (epoll_ctl failed)"
            while let handle = nl_curl_poller_next_unwatched(poller) {
                guard let transfer = ledger.transfer(handle: handle) else { continue }
                fail(transfer, because: reason)
            }
            if nl_curl_poller_take_overflow(poller) != 0 {
                // Failing one can start, and fail, a waiting one: each is failed only while it is still there.
                for transfer in Array(ledger.transfers) where ledger.holds(transfer, id: transfer.submission.id) {
                    fail(transfer, because: reason)
                }
            }
        }

        /// Lets a paused streamed transfer deliver again (libcurl first hands over the bytes it kept).
        func resume(_ id: Int) {
            guard let transfer = ledger.transfer(id) else { return }
            _ = nl_curl_easy_pause(transfer.easy.pointer, NLCURLPAUSE_CONT)
        }

        /// Removes a send's transfer at once; its caller has already been answered.
        func drop(_ id: Int) {
            guard let transfer = ledger.transfer(id) else { return }
            remove(transfer)
            recycle(transfer)
        }

        /// Ends, or sends the next hop of, every transfer libcurl has finished; returns whether a hop was started,
        /// in which case libcurl should run again before the loop waits.
        private func collectFinished() -> Bool {
            var startedHop = false
            var code: Int32 = 0
            while let handle = nl_curl_multi_next_done(multi, &code) {
                guard let transfer = ledger.transfer(handle: handle) else { continue }
                let id = transfer.submission.id
                if remove(transfer) { startedHop = true }
                switch transfer.outcome(of: CurlCode(rawValue: code)) {
                case .follow where transfer.state.withLock({ $0.run(id) }),
                    .retry where transfer.state.withLock({ $0.run(id) }):
                    begin(transfer)
                    startedHop = true
                case .follow, .retry:
                    recycle(transfer)
                case .deliver(let data, let response):
                    recycle(transfer)
                    SendState.finish(transfer.state, with: .success((data, response)))
                case .fail(let error):
                    recycle(transfer)
                    SendState.finish(transfer.state, with: .failure(error))
                case .endBody(let error):
                    transfer.flushPending()
                    recycle(transfer)
                    if let error {
                        transfer.submission.stream?.fail(error)
                    } else {
                        transfer.submission.stream?.finish()
                    }
                }
            }
            return startedHop
        }

        /// Hands every streamed body the bytes joined during this turn.
        private func flushPending() {
            for transfer in ledger.transfers where transfer.hasPending { transfer.flushPending() }
        }

        /// Forgets a transfer that libcurl no longer runs and keeps its easy handle for the next one.
        private func recycle(_ transfer: CurlTransfer) {
            ledger.forget(transfer, id: transfer.submission.id)
            sendLeft(of: transfer)
            if idle.count < Self.idleLimit {
                idle.append(transfer.easy)
            } else {
                transfer.easy.cleanUp()
            }
        }

        /// Removes every transfer (their callers are answered: the transport shut down) and frees every easy handle;
        /// the loop takes no more. The pool is left as it is: the transport stops every loop.
        func removeAll() {
            for transfer in ledger.stop() {
                _ = nl_curl_multi_remove_handle(multi, transfer.easy.pointer)
                let error = CurlTransport.shutDownError(for: transfer.submission.request)
                SendState.finish(transfer.state, with: .failure(error))
                transfer.submission.stream?.fail(error)
                transfer.easy.cleanUp()
                sendLeft(of: transfer)
            }
            for easy in idle { easy.cleanUp() }
            idle = []
        }
    }
#endif
