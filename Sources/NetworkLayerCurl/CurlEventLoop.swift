import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

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
                CurlMulti(
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
                CurlMulti.refuse(submission)
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
                            CurlMulti.refuse(submission)
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
#endif
