import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// A loop's poller (its epoll set and wake-up), which any thread may wake.
    ///
    /// Why `@unchecked Sendable` is sound: the pointer is set once; waking (an eventfd write) and waiting (an
    /// `epoll_wait`) are system calls that any thread may make at any time; and it is freed in the deinit of the loop's
    /// ``CurlTransfers``, which runs only after the loop's thread has returned (the thread holds the loop) and after
    /// every closure that could wake it has been released (they hold the loop too).
    struct CurlPoller: @unchecked Sendable {
        let pointer: OpaquePointer
    }

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

    /// The right to drive one loop's multi handle: whoever holds it (the loop's thread during a turn, or a caller
    /// that found the loop waiting) is the only one to call libcurl with the loop's handles, and the only one to
    /// touch its transfers.
    ///
    /// Why `@unchecked Sendable` is sound: `transfers` is reached only through ``drive(_:)`` and
    /// ``driveIfFree(_:)``, between `lock()` and `unlock()` of the one lock, so no two threads ever touch it (or
    /// libcurl's handles it owns) at once, and each holder sees what the one before wrote. Its `deinit` frees the
    /// multi handle without the lock: it runs only once nothing can reach the driver any more.
    final class CurlDriver: @unchecked Sendable {
        private let lock = NSLock()
        private let transfers: CurlTransfers

        init(_ transfers: CurlTransfers) {
            self.transfers = transfers
        }

        /// Runs `body` with the transfers, waiting for the lock.
        func drive<Result>(_ body: (CurlTransfers) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(transfers)
        }

        /// Runs `body` with the transfers if nobody drives the loop now; nil, without waiting, if somebody does.
        func driveIfFree<Result>(_ body: (CurlTransfers) -> Result) -> Result? {
            guard lock.try() else { return nil }
            defer { lock.unlock() }
            return body(transfers)
        }
    }

    /// One thread that drives the transfers handed to it with a libcurl multi handle, its own connections and its own
    /// easy handles; a ``CurlTransport`` has ``CurlTransport/threadCount`` of them.
    ///
    /// The loop uses libcurl's socket interface on an epoll set of its own, so that its thread need not be the one
    /// to start a transfer. A caller whose send is the loop's only one (and no upload, with libcurl resolving names
    /// asynchronously: see ``CurlLoopPlan/callerStartsSend(sendsAlreadyOnLoop:uploads:resolvesAsynchronously:)``),
    /// and finds the loop waiting, starts the send itself: the request leaves from the caller's thread, its socket joins the set the
    /// loop waits on, and on a kept-alive connection the loop wakes only when the response arrives (before, every
    /// send woke the loop to start it: one more hand-off and context switch per request). Other sends go into the
    /// inbox, which the loop takes at its next turn (and wakes it, when it waits). Cancellations and resumptions always go through the inbox and take effect at the
    /// loop's next turn, which removes the transfer from libcurl at once.
    final class CurlEventLoop: Sendable {
        private let driver: CurlDriver
        private let poller: CurlPoller
        private let inbox = Locked(CurlInbox<CurlSubmission>())
        /// The sends handed to this loop that have not left it yet, for the transport to choose the least busy loop.
        private let counted: CurlLoad
        /// Whether a caller may start its own send: only when libcurl resolves names without blocking, since a
        /// caller's thread is one of Swift's cooperative threads.
        private let callersMayDrive = CurlLibrary.resolvesAsynchronously

        /// Whether the loop's thread has returned, and who waits for it to.
        private let ending = Locked(CurlLoopEnding())

        /// Makes the multi handle and its poller, and starts the thread: the loop numbered `index` in `pool`, which
        /// may open `maximumConnectionsPerHost` connections to a host.
        init(
            rules: CurlTransferRules, maximumConnectionsPerHost: Int, pool: CurlPool, index: Int
        ) throws(CurlTransport.Unavailable) {
            guard let multi = nl_curl_multi_init() else {
                throw CurlTransport.Unavailable(reason: "curl_multi_init failed")
            }
            guard let poller = nl_curl_poller_create(multi) else {
                _ = nl_curl_multi_cleanup(multi)
                throw CurlTransport.Unavailable(reason: "the event loop's epoll set could not be made")
            }
            _ = nl_curl_multi_setopt_long(multi, Int32(NLCURLMOPT_PIPELINING), NLCURLPIPE_MULTIPLEX)
            _ = nl_curl_multi_setopt_long(
                multi, Int32(NLCURLMOPT_MAX_HOST_CONNECTIONS), max(1, maximumConnectionsPerHost))
            _ = nl_curl_multi_setopt_long(
                multi, Int32(NLCURLMOPT_MAXCONNECTS), max(16, maximumConnectionsPerHost * 4))
            let counted = CurlLoad()
            self.counted = counted
            self.poller = CurlPoller(pointer: poller)
            driver = CurlDriver(
                CurlTransfers(
                    multi: multi, poller: poller, rules: rules, pool: pool, index: index, load: counted))
            let thread = Thread { [self] in run() }
            thread.name = "NetworkLayer.CurlTransport"
            thread.start()
        }

        /// How many sends this loop runs or has yet to start.
        var load: Int { counted.sends.load(ordering: .relaxed) }

        /// Hands a send to the loop, or starts it on the caller's thread when it is the loop's only send and the loop
        /// waits. Under load the loop's thread starts every send: callers that drove a busy loop would take turns
        /// with it for the lock (measured at 64 concurrent requests: up to a quarter fewer a second).
        func submit(_ submission: CurlSubmission) {
            let others = counted.sends.add(1, ordering: .relaxed).oldValue
            if CurlLoopPlan.callerStartsSend(
                sendsAlreadyOnLoop: others, uploads: submission.upload != nil,
                resolvesAsynchronously: callersMayDrive),
                driver.driveIfFree({ $0.startNow(submission) }) == true
            {
                counted.startedByCallers.add(1, ordering: .relaxed)
                return
            }
            hand(.submit(submission))
        }

        /// How many sends their callers started, for tests.
        var sendsStartedByCallers: Int { counted.startedByCallers.load(ordering: .relaxed) }

        /// How many turns the loop's thread has taken, for tests.
        var turns: Int { counted.turns.load(ordering: .relaxed) }

        /// How many sends were answered as their bodies completed, for tests.
        var sendsAnsweredEarly: Int { counted.answeredEarly.load(ordering: .relaxed) }

        /// Asks the loop to go on with a streamed transfer it paused because its reader was behind.
        func resume(_ id: Int) {
            hand(.resume(id))
        }

        /// Asks the loop to drop a send whose caller has already been answered.
        func cancel(_ id: Int) {
            hand(.cancel(id))
        }

        /// Stops the thread after it has removed every transfer (their callers are answered with `error`) and freed
        /// every easy handle, its connections, its multi handle and its poller.
        func shutDown() {
            hand(.stop)
        }

        /// Returns once the loop's thread has returned, its handles and descriptors freed.
        func stopped() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if ending.withLock({ $0.wait(continuation) }) { continuation.resume() }
            }
        }

        /// Adds to the inbox, and wakes the loop if it waits. A loop that has stopped takes nothing: a send handed
        /// to it then is answered at once. The wake-up is made under the inbox's lock, which the loop's thread takes
        /// to close the inbox before it frees the poller.
        private func hand(_ item: CurlInbox<CurlSubmission>.Item) {
            let accepted = inbox.withLock { inbox in
                guard !inbox.isClosed else { return false }
                if inbox.add(item) { nl_curl_poller_wake(poller.pointer) }
                return true
            }
            if !accepted, case .submit(let submission) = item {
                counted.leave()
                CurlTransfers.refuse(submission)
            }
        }

        /// The loop thread's body: a turn with the driver's lock, then a wait without it.
        private func run() {
            let capacity = 64
            var sockets = [Int32](repeating: 0, count: capacity)
            var actions = [Int32](repeating: 0, count: capacity)
            var ready = 0
            while true {
                counted.turns.add(1, ordering: .relaxed)
                let timeout: Int32? = driver.drive { transfers in
                    for index in 0..<ready { transfers.act(on: sockets[index], actions[index]) }
                    let batch = inbox.withLock { $0.take() }
                    if batch.isStopping {
                        transfers.removeAll()
                        let late = inbox.withLock { $0.close() }
                        for submission in batch.submissions + late.submissions {
                            counted.leave()
                            CurlTransfers.refuse(submission)
                        }
                        transfers.release()
                        return nil
                    }
                    for submission in batch.submissions { transfers.start(submission) }
                    for id in batch.cancellations { transfers.drop(id) }
                    for id in batch.resumptions { transfers.resume(id) }
                    transfers.settle()
                    // Work that arrived during the turn is taken at once; otherwise the next hand-over wakes the wait.
                    guard inbox.withLock({ $0.prepareToWait() }) else { return 0 }
                    return transfers.prepareToWait()
                }
                guard let timeout else {
                    for waiter in ending.withLock({ $0.end() }) { waiter.resume() }
                    return
                }
                ready = Int(max(0, nl_curl_poller_wait(poller.pointer, timeout, &sockets, &actions, Int32(capacity))))
                inbox.withLock { $0.endWait() }
            }
        }
    }

    /// The loop the transport's pool placed a send on, once it has (a send waiting in the pool has none yet): where
    /// its cancellation and its stream's resumptions go. Set once, by whoever places the send, before the send can
    /// start; a cancellation that finds none finds the send still in the pool, or about to start and see that it
    /// ended.
    final class CurlRoute: Sendable {
        /// The key of the send's host in the pool (``CurlHostPool/host(ofURL:)``).
        let host: String
        private let placed = Atomic<Int>(-1)

        init(host: String) {
            self.host = host
        }

        /// Notes the loop the send runs on.
        func place(onLoop index: Int) {
            placed.store(index, ordering: .sequentiallyConsistent)
        }

        /// The loop the send runs on, if it has been placed.
        var loop: Int? {
            let index = placed.load(ordering: .sequentiallyConsistent)
            return index < 0 ? nil : index
        }
    }

    /// A transport's loops and the pool that places its sends on them.
    struct CurlLoops: Sendable {
        let loops: [CurlEventLoop]
        let pool: CurlPool

        /// Places a new send: on the least busy loop with a free connection to its host, or in the pool until a
        /// loop frees one; a send that comes after the transport was shut down is answered at once.
        func place(_ submission: CurlSubmission) {
            let placement = pool.withLock {
                $0.place(submission.id, .send(submission), to: submission.route.host, loads: loops.lazy.map(\.load))
            }
            switch placement {
            case .run(let index):
                submission.route.place(onLoop: index)
                loops[index].submit(submission)
            case .wait:
                break
            case .refused:
                CurlTransfers.refuse(submission)
            }
        }

        /// Drops a send whose caller has been answered: out of the pool if it waits there as a new send, off its
        /// loop if it runs, or waits there as a follow-up hop (a retry or a redirect to the same host: its transfer is
        /// on the loop, which takes it out of the pool too).
        func cancel(_ id: Int, _ route: CurlRoute) {
            if case .send? = pool.withLock({ $0.withdraw(id, from: route.host) })?.item { return }
            if let index = route.loop { loops[index].cancel(id) }
        }

        /// What drops the send `route` leads to, for its deadline and its cancellation.
        func canceller(for route: CurlRoute) -> @Sendable (Int) -> Void {
            { id in cancel(id, route) }
        }

        /// Lets a paused streamed transfer go on, on its loop (one not placed yet has not started).
        func resume(_ id: Int, _ route: CurlRoute) {
            if let index = route.loop { loops[index].resume(id) }
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
                if case .send(let submission) = waiter.item { CurlTransfers.refuse(submission) }
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

    /// Whether a loop's thread has returned, and the callers of ``CurlEventLoop/stopped()`` who wait for it.
    struct CurlLoopEnding {
        private var hasEnded = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        /// Keeps `waiter` until the end; true, keeping nothing, when the loop has ended already.
        mutating func wait(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
            guard !hasEnded else { return true }
            waiters.append(waiter)
            return false
        }

        /// The loop ended: the waiters to resume.
        mutating func end() -> [CheckedContinuation<Void, Never>] {
            hasEnded = true
            defer { waiters = [] }
            return waiters
        }
    }

    /// A loop's multi handle, its transfers in flight and its idle easy handles, touched only by whoever drives the
    /// loop (``CurlDriver``). Where each transfer is lives in values it feeds: which transfers the loop holds, in
    /// its ``CurlLoopLedger``; each one's hop, in its ``CurlHop``; its host's connections, in the ``CurlHostPool``.
    final class CurlTransfers {
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
        /// Whether the multi handle, the poller and the authorities' blob are freed (the loop stopped).
        private var isReleased = false
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
            guard !isReleased else { return }
            isReleased = true
            _ = nl_curl_multi_cleanup(multi)
            nl_curl_poller_free(poller)
            authorities?.deallocate()
        }

        /// Answers a send that a stopped loop will never run: the transport was shut down.
        static func refuse(_ submission: CurlSubmission) {
            let error = CurlTransport.shutDownError(for: submission.request)
            SendState.end(submission.state, with: .failure(error), workFinished: true, cancel: { _ in })
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
                handOver(leavePool(submission.route.host, multiplexes: nil))
                return
            }
            guard let easy = idle.popLast() ?? CurlEasyHandle() else {
                load.leave()
                handOver(leavePool(submission.route.host, multiplexes: nil))
                let error = NetworkError.transport(
                    .other, underlyingError: URLError(.unknown, description: "curl_easy_init failed"))
                return SendState.end(submission.state, with: .failure(error), workFinished: true, cancel: { _ in })
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
                if placed { handOver(leavePool(transfer.submission.route.host, multiplexes: nil)) }
                return SendState.end(transfer.state, with: .failure(error), workFinished: true, cancel: { _ in })
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
            transfer.hop.leaveHostQueue()
            _ = nl_curl_easy_open_sockets_through(transfer.easy.pointer, poller)
            let code = nl_curl_multi_add_handle(multi, transfer.easy.pointer)
            if code != 0 { fail(transfer, because: "curl_multi_add_handle failed (CURLMcode \(code))") }
        }

        /// Takes a hop out of libcurl, or out of the host queue, and hands libcurl the sends to its host that may go
        /// now; returns whether it started any.
        @discardableResult
        private func remove(_ transfer: CurlTransfer) -> Bool {
            if transfer.hop.isWaitingForConnection {
                transfer.hop.leaveHostQueue()
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
                    submission.route.place(onLoop: index)
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
                if case .hop = waiter.item { ledger.transfer(waiter.id)?.hop.leaveHostQueue() }
            }
            return ledger.admit(waiters)
        }

        /// Ends a transfer that libcurl cannot run: takes it out of libcurl, if it is there, and fails its send.
        private func fail(_ transfer: CurlTransfer, because reason: String) {
            remove(transfer)
            transfer.flushPending()
            recycle(transfer)
            let error = NetworkError.transport(.other, underlyingError: URLError(.unknown, description: reason))
            SendState.end(transfer.state, with: .failure(error), workFinished: true, cancel: { _ in })
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
                    SendState.end(
                        transfer.state, with: .success((data, response)), workFinished: true, cancel: { _ in })
                case .fail(let error):
                    recycle(transfer)
                    SendState.end(transfer.state, with: .failure(error), workFinished: true, cancel: { _ in })
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
                SendState.end(transfer.state, with: .failure(error), workFinished: true, cancel: { _ in })
                transfer.submission.stream?.fail(error)
                transfer.easy.cleanUp()
                sendLeft(of: transfer)
            }
            for easy in idle { easy.cleanUp() }
            idle = []
        }
    }
#endif
