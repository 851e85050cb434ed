import NetworkLayerSupport

#if os(Linux)
    import NetworkLayerCore
    /// Where the hop a ``CurlTransfer`` runs now is, as one value: its phase, changed only by the events below, each
    /// returning what the transfer does next. The transfer's libcurl callbacks and its event loop feed it the events;
    /// what it decides (when to answer the caller early, whether the handle keeps its options for the next hop, how a
    /// hop ends) is tested without libcurl.
    struct CurlHop {
        /// Why the transport ended a transfer from one of its callbacks.
        enum Abort {
            case tooLarge(announced: Int64?)
            case head(HeaderBlock.Violation)
            /// The send ended (cancelled, past its deadline) or its stream's reader left.
            case ended
            /// The upload body could not be read (a file that shrank, a stream that failed).
            case upload(NetworkError)
            /// The kept-alive connection libcurl chose had bytes waiting before the request was sent.
            case uncleanConnection
            /// libcurl was about to send the request again on its own (its kept-alive connection closed before any
            /// byte of an answer), and the request may not go again: the server may have acted on it.
            case notSentAgain
        }

        /// The phases of a hop, in the order they come.
        enum Phase {
            /// Waiting in the transport's ``CurlHostPool`` for a connection of its loop to its host.
            case waitingForConnection
            /// In libcurl: the request goes out and the response's head arrives.
            case sending
            /// The head is complete and the body is collected for the caller, who is answered as the body reaches
            /// `completesAt` bytes, or (`nil`) once libcurl has finished the transfer.
            case collecting(completesAt: Int?)
            /// The caller was answered as the body completed, before libcurl finished the transfer: the send has
            /// left its loop, and libcurl finishes the transfer on its own.
            case answeredEarly
            /// A streamed send's caller has the head: the body goes to its stream, and the send's deadline no longer
            /// applies.
            case streaming
            /// A callback ended the transfer; `afterHead` when a streamed caller already had the head.
            case aborted(Abort, afterHead: Bool)
        }

        /// What the transfer knows of a head the moment it is complete.
        struct CompleteHead {
            var statusCode: Int?
            /// The `Content-Length` the response announced, if any.
            var announcedLength: Int64?
            var isContentEncoded: Bool
            /// Whether the hop's request is a `HEAD`, whose reply has no body whatever it announces.
            var answersHEAD: Bool
            /// Whether the redirect policy follows this head (its body is not the response's).
            var isFollowedRedirect: Bool
        }

        /// What to do with a head that just completed.
        enum HeadAction: Equatable {
            /// Take the body.
            case receiveBody
            /// Hand the head to the streamed send's caller, then take the body into its stream.
            case deliverHead
            /// End the transfer: the body the head announces is over the cap.
            case refuseBody(announced: Int64)
        }

        /// How libcurl's end of the hop is to be reported.
        enum End {
            /// The same hop again, on a fresh connection: the reused one was unclean.
            case retryOnFreshConnection
            /// A streamed body ended: completely (`nil`), with a callback's abort, or with libcurl's failure.
            case streamEnded(Abort?, failed: Bool)
            /// A callback's abort before a streamed caller had the head.
            case aborted(Abort)
            /// libcurl's failure.
            case failed
            /// The connection closed inside the response's header block (libcurl takes that for a response).
            case closedInsideHead
            /// No response, or an incomplete one, without a failure from libcurl.
            case noResponse
            /// A complete response: deliver it, or follow it if it is a redirect the policy follows.
            case response
        }

        /// The hop's phase.
        private(set) var phase: Phase = .sending
        /// Whether the hop is a GET without a body, upload, stream or fresh connection: the one kind answered early
        /// and whose handle may keep its options.
        private(set) var isPlainGET = false
        /// How many times libcurl has sent the hop's request (its pre-request callback's calls).
        private(set) var requestsSent = 0
        /// Whether libcurl may send the hop's request again on its own: an idempotent method or an
        /// `Idempotency-Key` (``RetryOption/allowsSendingAgain(method:idempotencyKey:)``, the one rule).
        private(set) var maySendAgain = true
        /// Whether the hop goes out on a connection of its own, because the one libcurl reused for its last attempt
        /// was unclean (a transfer aborted by a callback never leaves its connection for reuse).
        private(set) var opensFreshConnection = false
        /// The largest body the transport collects.
        let maximumResponseSize: Int

        init(maximumResponseSize: Int) {
            self.maximumResponseSize = maximumResponseSize
        }

        // MARK: Events

        /// A hop starts (the first, a redirect, or the same hop again): `isPlainGET` as the request's shape says, never
        /// on a fresh connection.
        mutating func start(plainGET: Bool, maySendAgain: Bool) {
            phase = .sending
            isPlainGET = plainGET && !opensFreshConnection
            requestsSent = 0
            self.maySendAgain = maySendAgain
        }

        /// The transport's pool holds the hop until its loop has a free connection to its host: only a hop that
        /// has just started, before libcurl has it.
        mutating func waitForConnection() {
            guard case .sending = phase, requestsSent == 0 else { preconditionFailure("\(#function) in \(phase)") }
            phase = .waitingForConnection
        }

        /// The hop goes to libcurl, or is taken out before it ran: it no longer waits in the pool (a hop the pool
        /// placed at once never did).
        mutating func stopWaitingForConnection() {
            switch phase {
            case .waitingForConnection: phase = .sending
            case .sending where requestsSent == 0: break
            default: preconditionFailure("\(#function) in \(phase)")
            }
        }

        /// Whether the hop waits in the pool rather than run in libcurl.
        var isWaitingForConnection: Bool {
            if case .waitingForConnection = phase { return true }
            return false
        }

        /// libcurl is about to send the request (once more, when it retries on a fresh connection of its own, which
        /// it does only after a reused connection closed before any byte of an answer): whether it may. A request
        /// that may not go again is aborted then (``Abort/notSentAgain``), so it reaches the server at most once.
        mutating func sendRequest() -> Bool {
            requestsSent += 1
            guard requestsSent == 1 || maySendAgain else {
                abort(.notSentAgain)
                return false
            }
            return true
        }

        /// A callback ends the transfer.
        mutating func abort(_ reason: Abort) {
            // A caller answered early has its response: what ends libcurl's transfer afterwards changes nothing.
            if case .answeredEarly = phase { return }
            phase = .aborted(reason, afterHead: hasDeliveredHead)
        }

        /// The head is complete: what to do with it.
        ///
        /// - Parameters:
        ///   - streamed: Whether the send streams its body to a reader.
        ///   - answersEarly: Whether the loop answers callers from their callbacks now (it does while it holds one
        ///     send: under load it answers them at the end of each transfer).
        mutating func headCompleted(_ head: CompleteHead, streamed: Bool, answersEarly: Bool) -> HeadAction {
            if streamed {
                guard !hasDeliveredHead, !head.isFollowedRedirect, head.statusCode != nil else { return .receiveBody }
                phase = .streaming
                return .deliverHead
            }
            // A body announced over the cap is refused before a byte of it is read (a HEAD reply has none).
            if let length = head.announcedLength, length > Int64(maximumResponseSize), !head.answersHEAD {
                phase = .aborted(.tooLarge(announced: length), afterHead: false)
                return .refuseBody(announced: length)
            }
            phase = .collecting(completesAt: answersEarly ? lengthThatCompletes(head) : nil)
            return .receiveBody
        }

        /// The body collected for the caller has grown to `count` bytes: whether to answer the caller now.
        mutating func bodyCollected(count: Int) -> Bool {
            guard case .collecting(let length?) = phase, count == length else { return false }
            phase = .answeredEarly
            return true
        }

        /// libcurl finished the hop with `code`; `head` is what arrived of the response's head.
        ///
        /// - Returns: How to report the end, and whether the easy handle keeps this hop's options for the next
        ///   plain GET (``CurlEasyHandle/holdsPlainGETOptions``): only after a plain GET that ended well on its first
        ///   attempt (libcurl counts requests it sent again on a fresh connection until a reset, and gives up on the
        ///   sixth).
        mutating func finish(
            _ code: CurlCode,
            statusArrived: Bool,
            headIsComplete: Bool
        ) -> (end: End, keepsOptions: Bool) {
            var aborted: Abort?
            var afterHead = false
            if case .aborted(let reason, let streamedHead) = phase {
                aborted = reason
                afterHead = streamedHead
            }
            let keepsOptions = isPlainGET && code == .ok && aborted == nil && requestsSent == 1
            if case .uncleanConnection = aborted {
                opensFreshConnection = true
                return (.retryOnFreshConnection, keepsOptions)
            }
            opensFreshConnection = false
            if hasDeliveredHead || afterHead { return (.streamEnded(aborted, failed: code != .ok), keepsOptions) }
            if let aborted { return (.aborted(aborted), keepsOptions) }
            guard code == .ok else { return (.failed, keepsOptions) }
            if statusArrived && !headIsComplete { return (.closedInsideHead, keepsOptions) }
            guard statusArrived else { return (.noResponse, keepsOptions) }
            return (.response, keepsOptions)
        }

        // MARK: What the phase says

        /// Whether a streamed send's caller has the head (and the body goes to its stream).
        var hasDeliveredHead: Bool {
            switch phase {
            case .streaming: true
            case .aborted(_, let afterHead): afterHead
            default: false
            }
        }

        /// Whether the caller was answered as the body completed.
        var wasAnsweredEarly: Bool {
            if case .answeredEarly = phase { return true }
            return false
        }

        /// The body length at which the caller of a plain GET is answered from the write callback as the body's last
        /// byte arrives, rather than once libcurl has finished the transfer and the loop has taken it out: requests
        /// one after another then wait for neither. Only a final response that announces its length, is no redirect
        /// and is not content-coded (libcurl hands over the decoded bytes, whose count the length does not give) is
        /// answered so; with a length, libcurl reads no byte past it into the body.
        private func lengthThatCompletes(_ head: CompleteHead) -> Int? {
            guard isPlainGET, let status = head.statusCode, !(300..<400).contains(status),
                let length = head.announcedLength, length > 0, length <= Int64(maximumResponseSize),
                !head.isContentEncoded
            else { return nil }
            return Int(length)
        }
    }
#endif
