#if os(Linux)
    import CCurl
    import Foundation
    import Synchronization

    /// A libcurl multi handle that other threads may only wake.
    ///
    /// Why `@unchecked Sendable` is sound: the pointer is set once in `init`; the event loop's thread is the only one
    /// that passes it to libcurl, except for `curl_multi_wakeup`, which libcurl documents as callable from any
    /// thread; and it is freed in the loop's `deinit`, which runs only after the loop's thread has returned (the
    /// thread holds the loop) and after every closure that could wake it has been released (they hold it too).
    struct CurlMultiHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    /// One thread that drives the transfers handed to it with a libcurl multi handle, its own connections and its own
    /// easy handles; a ``CurlTransport`` has ``CurlTransport/threadCount`` of them.
    ///
    /// Sends are handed over through an inbox (and a wake-up, when the loop waits), so a caller never waits for the
    /// loop; cancellations go the same way and take effect at the loop's next turn, which removes the transfer from
    /// libcurl at once.
    final class CurlEventLoop: Sendable {
        private let multi: CurlMultiHandle
        private let inbox = Locked(CurlInbox<CurlSubmission>())
        private let rules: CurlTransferRules
        /// The sends handed to this loop that have not left it yet, for the transport to choose the least busy loop.
        private let sends = Atomic<Int>(0)

        /// Makes the multi handle and starts the thread.
        init(rules: CurlTransferRules, maximumConnectionsPerHost: Int) throws(CurlTransport.Unavailable) {
            guard let pointer = nl_curl_multi_init() else {
                throw CurlTransport.Unavailable(reason: "curl_multi_init failed")
            }
            multi = CurlMultiHandle(pointer: pointer)
            self.rules = rules
            _ = nl_curl_multi_setopt_long(pointer, Int32(NLCURLMOPT_PIPELINING), NLCURLPIPE_MULTIPLEX)
            _ = nl_curl_multi_setopt_long(
                pointer, Int32(NLCURLMOPT_MAX_HOST_CONNECTIONS), max(1, maximumConnectionsPerHost))
            _ = nl_curl_multi_setopt_long(
                pointer, Int32(NLCURLMOPT_MAXCONNECTS), max(16, maximumConnectionsPerHost * 4))
            let thread = Thread { [self] in run() }
            thread.name = "NetworkLayer.CurlTransport"
            thread.start()
        }

        deinit {
            _ = nl_curl_multi_cleanup(multi.pointer)
        }

        /// How many sends this loop runs or has yet to start.
        var load: Int { sends.load(ordering: .relaxed) }

        /// Hands a send to the loop.
        func submit(_ submission: CurlSubmission) {
            sends.add(1, ordering: .relaxed)
            hand(.submit(submission))
        }

        /// Asks the loop to go on with a streamed transfer it paused because its reader was behind.
        func resume(_ id: Int) {
            hand(.resume(id))
        }

        /// Asks the loop to drop a send whose caller has already been answered.
        func cancel(_ id: Int) {
            hand(.cancel(id))
        }

        /// Stops the thread after it has removed every transfer and freed every easy handle.
        func shutDown() {
            hand(.stop)
        }

        /// Adds to the inbox, and wakes the loop if it waits.
        private func hand(_ item: CurlInbox<CurlSubmission>.Item) {
            if inbox.withLock({ $0.add(item) }) { _ = nl_curl_multi_wakeup(multi.pointer) }
        }

        /// The loop thread's body.
        private func run() {
            let transfers = CurlTransfers(multi: multi.pointer, rules: rules) {
                self.sends.subtract(1, ordering: .relaxed)
            }
            var running: Int32 = 0
            var ready: Int32 = 0
            while true {
                let batch = inbox.withLock { $0.take() }
                if batch.isStopping { return transfers.removeAll() }
                for submission in batch.submissions { transfers.start(submission) }
                for id in batch.cancellations { transfers.drop(id) }
                for id in batch.resumptions { transfers.resume(id) }
                repeat {
                    _ = nl_curl_multi_perform(multi.pointer, &running)
                    transfers.flushPending()
                } while transfers.collectFinished()
                // Work that arrived during the turn is taken at once; otherwise the next hand-over wakes the wait.
                guard inbox.withLock({ $0.prepareToWait() }) else { continue }
                _ = nl_curl_multi_poll(multi.pointer, 1000, &ready)
                inbox.withLock { $0.endWait() }
            }
        }
    }

    /// The transfers in flight and the idle easy handles, owned by the loop thread.
    private final class CurlTransfers {
        let multi: UnsafeMutableRawPointer
        let rules: CurlTransferRules
        /// The trusted authorities' PEM blob, copied once here for every transfer to point at (a copy per transfer
        /// would cost one allocation and copy of the blob per request, the whole system bundle when it is in it);
        /// freed after every easy handle, in `deinit`, which runs when the loop's thread returns from `removeAll()`.
        private let authorities: UnsafeMutableRawBufferPointer?
        private var byID: [Int: CurlTransfer] = [:]
        private var idByHandle: [UnsafeMutableRawPointer: Int] = [:]
        private var idle: [CurlEasyHandle] = []
        private let connections = CurlConnections()
        /// The buffers streamed bodies join their reads into, reused from chunk to chunk.
        private let chunkBuffers = ChunkBuffers(capacity: CurlTransfer.streamChunkSize)
        /// Called once for every send that leaves the loop: ended, dropped, or never started.
        private let sendLeft: () -> Void
        /// How many idle easy handles are kept for reuse.
        private static let idleLimit = 32

        init(multi: UnsafeMutableRawPointer, rules: CurlTransferRules, sendLeft: @escaping () -> Void) {
            self.multi = multi
            self.rules = rules
            self.sendLeft = sendLeft
            if case .blob(let pem, _) = rules.trustedCertificates {
                let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: pem.count, alignment: 1)
                bytes.copyBytes(from: pem)
                authorities = bytes
            } else {
                authorities = nil
            }
        }

        deinit {
            authorities?.deallocate()
        }

        /// Starts a send unless it ended while it waited in the inbox.
        func start(_ submission: CurlSubmission) {
            guard !submission.state.withLock({ $0.hasEnded }) else { return sendLeft() }
            guard let easy = idle.popLast() ?? CurlEasyHandle() else {
                sendLeft()
                let error = NetworkError.transport(
                    .other, underlyingError: URLError(.unknown, description: "curl_easy_init failed"))
                return submission.state.end(with: .failure(error), workFinished: true, cancel: { _ in })
            }
            begin(
                CurlTransfer(
                    submission, rules: rules, easy: easy, authorities: authorities.map(UnsafeRawBufferPointer.init),
                    connections: connections, chunkBuffers: chunkBuffers))
        }

        /// Sets up the transfer's current hop and hands it to libcurl.
        private func begin(_ transfer: CurlTransfer) {
            if let error = transfer.configure() {
                recycle(transfer)
                return transfer.state.end(with: .failure(error), workFinished: true, cancel: { _ in })
            }
            let id = transfer.submission.id
            byID[id] = transfer
            idByHandle[transfer.easy.pointer] = id
            _ = nl_curl_multi_add_handle(multi, transfer.easy.pointer)
        }

        /// Lets a paused streamed transfer deliver again (libcurl first hands over the bytes it kept).
        func resume(_ id: Int) {
            guard let transfer = byID[id] else { return }
            _ = nl_curl_easy_pause(transfer.easy.pointer, NLCURLPAUSE_CONT)
        }

        /// Removes a send's transfer at once; its caller has already been answered.
        func drop(_ id: Int) {
            guard let transfer = byID[id] else { return }
            _ = nl_curl_multi_remove_handle(multi, transfer.easy.pointer)
            recycle(transfer)
        }

        /// Ends, or sends the next hop of, every transfer libcurl has finished; returns whether a hop was started,
        /// in which case libcurl should run again before the loop waits.
        func collectFinished() -> Bool {
            var startedHop = false
            var code: Int32 = 0
            while let handle = nl_curl_multi_next_done(multi, &code) {
                guard let id = idByHandle[handle], let transfer = byID[id] else { continue }
                _ = nl_curl_multi_remove_handle(multi, handle)
                switch transfer.outcome(of: CurlCode(rawValue: code)) {
                case .follow where transfer.state.withLock({ $0.run(id) }),
                    .retry where transfer.state.withLock({ $0.run(id) }):
                    begin(transfer)
                    startedHop = true
                case .follow, .retry:
                    recycle(transfer)
                case .deliver(let data, let response):
                    recycle(transfer)
                    transfer.state.end(with: .success((data, response)), workFinished: true, cancel: { _ in })
                case .fail(let error):
                    recycle(transfer)
                    transfer.state.end(with: .failure(error), workFinished: true, cancel: { _ in })
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
        func flushPending() {
            for transfer in byID.values where transfer.hasPending { transfer.flushPending() }
        }

        /// Forgets a transfer that libcurl no longer runs and keeps its easy handle for the next one.
        private func recycle(_ transfer: CurlTransfer) {
            let id = transfer.submission.id
            if byID[id] === transfer { byID[id] = nil }
            idByHandle[transfer.easy.pointer] = nil
            sendLeft()
            if idle.count < Self.idleLimit {
                idle.append(transfer.easy)
            } else {
                transfer.easy.cleanUp()
            }
        }

        /// Removes every transfer (their callers are cancelled) and frees every easy handle.
        func removeAll() {
            for transfer in byID.values {
                _ = nl_curl_multi_remove_handle(multi, transfer.easy.pointer)
                transfer.state.end(with: .failure(CancellationError()), workFinished: true, cancel: { _ in })
                transfer.submission.stream?.fail(.cancelled)
                transfer.easy.cleanUp()
                sendLeft()
            }
            byID = [:]
            idByHandle = [:]
            for easy in idle { easy.cleanUp() }
            idle = []
        }
    }
#endif
