import Foundation
@_spi(TransportKit) package import NetworkLayerCore
import NetworkLayerSupport
package import NetworkLayerWebSocketFraming

/// The waiters a ``CurlWebSocketStateMachine`` holds for its connection: the app's continuations in the transport,
/// plain numbers in its tests and fuzz target.
package protocol CurlWebSocketWaiters {
    /// A send that waits for the connection to take its frame.
    associatedtype Send
    /// A receive that waits for a message or the end.
    associatedtype Receive
    /// A ping that waits for its pong.
    associatedtype Ping
    /// A close that waits for the end.
    associatedtype Close
}

/// The life of one ``CurlWebSocket`` connection after its handshake, as a value: what the app asks for (a send, a
/// receive, a ping, a close, a cancellation), what the socket does (bytes read, bytes written, full, writable, a
/// failure or a drop) and what the timers say (a ping's or the close's timeout, a keep-alive tick, a stall check) go
/// in as events; each returns the ``Action``s the connection carries out after the event, in order, so that every
/// waiter is resumed outside the machine, exactly once.
///
/// Every waiter lives in the one ``State``: while the connection is ``State/open(_:)`` or
/// ``State/closing(_:closers:)`` the ``Live`` value holds the waiting receive, the sends in the outbox and the pings;
/// ``State/ended(_:)`` holds none, and the event that ends the connection returns an action for every waiter it had.
/// An event the connection cannot send in a state (bytes written after the end) is a `preconditionFailure`.
///
/// A cancelled send that waits behind another frame is withdrawn while its message is still unframed: the machine
/// frames (and, with permessage-deflate, compresses into the shared deflate context) a waiting message only once it
/// reaches the head of the outbox, or when a close seals the outbox. A framed message stays: with context takeover
/// the peer's inflater needs it to read the messages after it, and its first byte may be on the wire; so it is
/// written, or fails with the connection (a stalled socket ends it within the send timeout).
package struct CurlWebSocketStateMachine<Waiters: CurlWebSocketWaiters> {
    /// How the connection ended: the close code and reason, or the error it failed with.
    package struct Ending {
        /// The server's close code (or the client's, when the client closed or failed the connection).
        package var code: UInt16?
        /// The reason sent with ``code``; empty when none was given.
        package var reason: String
        /// The error the connection failed with; `nil` for a clean close.
        package var error: NetworkError?
    }

    /// What an outbox entry carries: bytes of a frame, or a waiting send's message, framed when its turn comes.
    package enum Content {
        /// A frame's bytes, ready to write.
        case frame([UInt8])
        /// A waiting send's message, not framed yet: withdrawn if its send is cancelled.
        case message(WebSocketMessage)
    }

    /// One entry of the outbox, and the send that waits for it, if one does.
    package struct Outgoing {
        /// The frame, or the message not framed yet.
        package var content: Content
        /// The send answered once this entry is written, with its number.
        package var sender: (id: Int, waiter: Waiters.Send)?
    }

    /// Whether the socket's writable event is watched, and since when the socket took no byte of a waiting frame.
    package enum WriteWait: Equatable {
        /// Nothing waits for the socket.
        case idle
        /// A frame waits; the writable event is watched; the socket has taken no byte since `since`.
        case waiting(since: UInt64)
        /// The writable event came and is being handled (the watch is off); the socket took no byte since `since`.
        case woken(since: UInt64)
    }

    /// Everything an open or closing connection holds.
    package struct Live {
        /// The protocol's rules (RFC 6455): frames out, messages and the close handshake in.
        package var protocolState: WebSocketConnectionState
        /// Frames and waiting sends, in the order they go out; `written` bytes of the first are on the wire.
        package var outbox: [Outgoing] = []
        /// How many bytes of the first entry of the outbox are written.
        package var written = 0
        /// Messages received and not yet read by the app.
        package var received: [WebSocketMessage] = []
        /// The receive waiting for a message, with its number.
        package var receiver: (id: Int, waiter: Waiters.Receive)?
        /// Pings waiting for their pong, oldest first.
        package var pings: [(id: Int, payload: [UInt8], waiter: Waiters.Ping)] = []
        /// Whether the socket's readable event is watched (`false` while ``CurlWebSocket/bufferedMessageLimit``
        /// messages wait for the app).
        package var isReading = true
        /// The wait for the socket to take more.
        package var writeWait = WriteWait.idle
        /// Whether a stall check is scheduled: one at a time, however often the socket fills and drains.
        package var isCheckingForStall = false
        /// The payload of the keep-alive ping whose pong has not come yet.
        package var keepAlivePending: [UInt8]?
        /// How many keep-alive pings went out.
        package var keepAlives: UInt32 = 0
        /// How many keep-alive pings were answered: for tests.
        package var keepAlivesAnswered = 0
    }

    /// Where the connection is in its life; the cases hold the waiters the connection owes an answer.
    package enum State {
        /// Open: messages go both ways.
        case open(Live)
        /// The client sent its close frame (or is sending it); `closers` wait for the end.
        case closing(Live, closers: [Waiters.Close])
        /// Ended; messages received before the end are still read before it.
        case ended(Ended)
        /// Only while an event changes the state in place (so that its arrays are not copied).
        case modifying
    }

    /// What an ended connection keeps: how it ended, and what the app has not read.
    package struct Ended {
        /// How it ended.
        package var ending: Ending
        /// Messages received before the end, not yet read.
        package var received: [WebSocketMessage]
    }

    /// What the connection does after an event, in order.
    package enum Action {
        /// Writes what the outbox holds (``nextWrite()`` until it says stop).
        case write
        /// Answers a send.
        case answerSend(Waiters.Send, Result<Void, NetworkError>)
        /// Answers a receive.
        case answerReceive(Waiters.Receive, Result<WebSocketMessage?, NetworkError>)
        /// Answers a ping.
        case answerPing(Waiters.Ping, Result<Void, NetworkError>)
        /// Answers a close.
        case answerClose(Waiters.Close)
        /// Stops watching the socket's readable event.
        case pauseReading
        /// Watches the socket's readable event again, and reads what it holds.
        case resumeReading
        /// Watches the socket's writable event.
        case watchWritable
        /// Stops watching the socket's writable event.
        case stopWatchingWritable
        /// Calls ``stallCheck(now:)`` after `seconds`.
        case checkForStall(after: Double)
        /// Calls ``pingTimedOut(id:after:)`` after `seconds` (none when negative), with them.
        case timePing(id: Int, after: Double)
        /// Calls ``closeTimedOut(code:reason:)`` after the close timeout.
        case timeClose(code: UInt16, reason: String)
        /// Writes what the outbox holds, then calls ``end(code:reason:error:)`` with these: the close handshake
        /// completed or the server broke the protocol.
        case writeThenEnd(code: UInt16?, reason: String, error: NetworkError?)
        /// Stops watching the socket and frees the connection: once, at the end. A suspended source is resumed
        /// before it is cancelled.
        case release(readSuspended: Bool, writeSuspended: Bool)
    }

    /// What a send finds when it comes with no frame waiting before it.
    package enum SendNow {
        /// Its frame is in the outbox: write it, then see ``endedError``.
        case write
        /// A frame waits: the send waits its turn.
        case wait
        /// The connection cannot take it.
        case fail(NetworkError)
    }

    /// What ``nextWrite()`` gives.
    package enum NextWrite {
        /// The unwritten bytes of the first frame.
        case bytes(ArraySlice<UInt8>)
        /// Nothing to write (the outbox is empty, the socket is watched, or the connection ended).
        case nothing
    }

    /// Where the connection is.
    package private(set) var state: State
    /// How many received messages may wait for the app before the connection stops reading.
    package let bufferedMessageLimit: Int
    /// How long the socket may take no byte of a waiting frame before the connection is ended as dead, in seconds.
    package let sendTimeout: Double
    /// How often a keep-alive ping checks that the peer is alive, in seconds; `nil` for never.
    package let keepAlive: Double?

    /// An open connection.
    package init(
        protocolState: WebSocketConnectionState, bufferedMessageLimit: Int, sendTimeout: Double, keepAlive: Double?
    ) {
        state = .open(Live(protocolState: protocolState))
        self.bufferedMessageLimit = bufferedMessageLimit
        self.sendTimeout = sendTimeout
        self.keepAlive = keepAlive
    }

    // MARK: Reading the state

    /// How the connection ended, once it has.
    package var ending: Ending? {
        if case .ended(let ended) = state { return ended.ending }
        return nil
    }

    /// How many received messages wait for the app.
    package var backlog: Int {
        switch state {
        case .open(let live), .closing(let live, _): live.received.count
        case .ended(let ended): ended.received.count
        case .modifying: 0
        }
    }

    /// Whether the connection reads from the socket now.
    package var wantsToRead: Bool {
        switch state {
        case .open(let live), .closing(let live, _): live.isReading
        case .ended, .modifying: false
        }
    }

    /// The error of a send or a ping the connection cannot take: always
    /// ``NetworkError/TransportFailure/connectionLost``, saying why (a receive gets the end's own error).
    package var lostError: NetworkError {
        guard let ending else { return .connectionLost("the WebSocket is closing") }
        return .lost(ending: ending.error, code: ending.code)
    }

    /// The error a send that wrote its frame on the caller's thread reports: the connection's, when the write ended
    /// it (the message did not go); `nil` when the frame went or waits to be written.
    package var endedError: NetworkError? { ending == nil ? nil : lostError }

    /// The live connection's fields, whatever its phase; `nil` once ended.
    package var live: Live? {
        switch state {
        case .open(let live), .closing(let live, _): live
        case .ended, .modifying: nil
        }
    }

    // MARK: The app's side

    /// A send that finds no frame waiting frames its message at once, to be written on the caller's thread.
    package mutating func sendNow(_ message: WebSocketMessage) -> SendNow {
        // The error is made only for a send that fails: a `URLError` costs more than the frame of a small message.
        let outcome: SendNow?? = withLive { live, _ in
            guard live.outbox.isEmpty else { return .wait }
            guard let bytes = live.protocolState.frame(message) else { return nil }
            live.outbox.append(Outgoing(content: .frame(bytes), sender: nil))
            return .write
        }
        guard case .some(.some(let now)) = outcome else { return .fail(lostError) }
        return now
    }

    /// A send that waits for its frame to be written: answered once it is, or when the connection ends.
    package mutating func send(_ message: WebSocketMessage, id: Int, waiter: Waiters.Send) -> [Action] {
        let isTaken =
            withLive { live, isClosing in
                // A closing connection makes no frame: the message cannot go.
                if isClosing { return false }
                live.outbox.append(Outgoing(content: .message(message), sender: (id, waiter)))
                return true
            } ?? false
        return isTaken ? [.write] : [.answerSend(waiter, .failure(lostError))]
    }

    /// The task of a waiting send was cancelled: the send is withdrawn while its message is unframed (see the
    /// type's documentation); otherwise it goes on (or was answered already).
    package mutating func cancelSend(id: Int) -> [Action] {
        withLive { live, _ in
            guard let index = live.outbox.firstIndex(where: { $0.sender?.id == id }),
                case .message = live.outbox[index].content, let sender = live.outbox[index].sender
            else { return [] }
            live.outbox.remove(at: index)
            return [.answerSend(sender.waiter, .failure(.cancelled))]
        } ?? []
    }

    /// A receive takes what is ready without waiting: the first message kept (reading resumes if it had paused for
    /// room), or the end once every kept message is read; `nil` while there is neither.
    package mutating func takeReady() -> (ready: Result<WebSocketMessage?, NetworkError>?, actions: [Action]) {
        switch takeState() {
        case .open(var live):
            defer { state = .open(live) }
            return take(from: &live)
        case .closing(var live, let closers):
            defer { state = .closing(live, closers: closers) }
            return take(from: &live)
        case .ended(var ended):
            defer { state = .ended(ended) }
            guard !ended.received.isEmpty else {
                return (ended.ending.error.map { .failure($0) } ?? .success(nil), [])
            }
            return (.success(ended.received.removeFirst()), [])
        case .modifying:
            preconditionFailure("a receive while the state changes")
        }
    }

    private func take(from live: inout Live) -> (ready: Result<WebSocketMessage?, NetworkError>?, actions: [Action]) {
        guard !live.received.isEmpty else { return (nil, []) }
        let message = live.received.removeFirst()
        guard !live.isReading, live.received.count < bufferedMessageLimit else { return (.success(message), []) }
        live.isReading = true
        return (.success(message), [.resumeReading])
    }

    /// A receive that waits: answered with what is ready, or held for the next message or the end. A second
    /// receive at once is refused.
    package mutating func receive(id: Int, waiter: Waiters.Receive) -> [Action] {
        let (ready, actions) = takeReady()
        if let ready { return [.answerReceive(waiter, ready)] + actions }
        return withLive { live, _ in
            guard live.receiver == nil else {
                return [.answerReceive(waiter, .failure(.invalidRequest(.url, reason: "two receives at once")))]
            }
            live.receiver = (id, waiter)
            return []
        } ?? []
    }

    /// The task of a waiting receive was cancelled: it is answered with `.cancelled`, unless it was answered already.
    package mutating func cancelReceive(id: Int) -> [Action] {
        withLive { live, _ in
            guard let receiver = live.receiver, receiver.id == id else { return [] }
            live.receiver = nil
            return [.answerReceive(receiver.waiter, .failure(.cancelled))]
        } ?? []
    }

    /// A ping with `payload`, answered when its pong arrives, when `timeout` passes (`nil` for no bound), or at the
    /// end.
    package mutating func ping(_ payload: [UInt8], timeout: Double?, id: Int, waiter: Waiters.Ping) -> [Action] {
        let isTaken =
            withLive { live, _ in
                guard let bytes = live.protocolState.ping(payload) else { return false }
                live.pings.append((id, payload, waiter))
                live.outbox.append(Outgoing(content: .frame(bytes), sender: nil))
                return true
            } ?? false
        guard isTaken else { return [.answerPing(waiter, .failure(lostError))] }
        // No timer for no bound (nil, infinite, or over 31 years): the end answers the ping.
        guard let timeout, timeout.isBoundedTimeout else { return [.write] }
        return [.write, .timePing(id: id, after: timeout)]
    }

    /// A ping's timeout passed: it fails with `.timedOut` unless its pong came; the connection stays open.
    package mutating func pingTimedOut(id: Int, after timeout: Double) -> [Action] {
        withLive { live, _ in
            guard let index = live.pings.firstIndex(where: { $0.id == id }) else { return [] }
            let error = NetworkError.transport(
                .timedOut, underlyingError: URLError(.timedOut, description: "no pong within \(timeout) s"))
            return [.answerPing(live.pings.remove(at: index).waiter, .failure(error))]
        } ?? []
    }

    /// A close: the client's close frame goes out, after every frame and waiting send before it, and the close
    /// waits for the server's (at most the close timeout). Answered at once once the connection has ended.
    package mutating func close(code: UInt16, reason: String, waiter: Waiters.Close) -> [Action] {
        switch state {
        case .open(var live):
            state = .modifying
            // The waiting messages are framed now, before the close frame, which seals the outbox.
            for index in live.outbox.indices {
                guard case .message(let message) = live.outbox[index].content else { continue }
                guard let bytes = live.protocolState.frame(message) else {
                    preconditionFailure("an open connection refused a message")
                }
                live.outbox[index].content = .frame(bytes)
            }
            guard let bytes = live.protocolState.close(code: code, reason: reason) else {
                preconditionFailure("an open connection refused its close")
            }
            live.outbox.append(Outgoing(content: .frame(bytes), sender: nil))
            state = .closing(live, closers: [waiter])
            return [.write, .timeClose(code: code, reason: reason)]
        case .closing(let live, var closers):
            state = .modifying
            closers.append(waiter)
            state = .closing(live, closers: closers)
            return []
        case .ended:
            return [.answerClose(waiter)]
        case .modifying:
            preconditionFailure("a close while the state changes")
        }
    }

    /// The close timeout passed: the connection ends with the client's code, if it has not ended yet.
    package mutating func closeTimedOut(code: UInt16, reason: String) -> [Action] {
        end(code: code, reason: reason, error: nil)
    }

    // MARK: The socket's side

    /// Bytes read from the socket: what they call for (pongs, messages, the end).
    package mutating func read(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        let limit = bufferedMessageLimit
        return withLive { live, _ in
            precondition(live.isReading, "bytes read while reading is paused")
            return Self.handle(live.protocolState.receive(bytes), in: &live, limit: limit)
        } ?? []
    }

    /// Bytes read from the socket, as an array (the handshake's leftover, tests).
    package mutating func read(_ bytes: [UInt8]) -> [Action] {
        bytes.withUnsafeBytes { read($0) }
    }

    /// What the protocol's answer to bytes read calls for.
    private static func handle(_ events: [WebSocketConnectionState.Action], in live: inout Live, limit: Int)
        -> [Action]
    {
        var actions: [Action] = []
        for event in events {
            switch event {
            case .write(let bytes):
                live.outbox.append(Outgoing(content: .frame(bytes), sender: nil))
            case .deliver(let framed):
                let message: WebSocketMessage =
                    switch framed {
                    case .text(let text): .text(text)
                    case .binary(let bytes): .binary(Data(bytes))
                    }
                if let receiver = live.receiver {
                    live.receiver = nil
                    actions.append(.answerReceive(receiver.waiter, .success(message)))
                } else {
                    live.received.append(message)
                    if live.received.count >= limit, live.isReading {
                        live.isReading = false
                        actions.append(.pauseReading)
                    }
                }
            case .pong(let payload):
                if payload == live.keepAlivePending {
                    live.keepAlivePending = nil
                    live.keepAlivesAnswered += 1
                }
                if let index = live.pings.firstIndex(where: { $0.payload == payload }) {
                    actions.append(.answerPing(live.pings.remove(at: index).waiter, .success(())))
                }
            case .closed(let code, let reason, let violation):
                let failure = violation.map { violation -> NetworkError in
                    .transport(
                        violation.closeCode == 1009 ? .responseTooLarge : .badResponse,
                        underlyingError: URLError(.badServerResponse, description: violation.description))
                }
                // No message can be framed from now on: the sends still waiting with one fail now.
                let error = NetworkError.lost(ending: failure, code: code)
                live.outbox.removeAll { entry in
                    guard case .message = entry.content, let sender = entry.sender else { return false }
                    actions.append(.answerSend(sender.waiter, .failure(error)))
                    return true
                }
                return actions + [.writeThenEnd(code: code, reason: reason, error: failure)]
            }
        }
        return live.outbox.isEmpty ? actions : actions + [.write]
    }

    /// The next bytes to write: the unwritten part of the first frame (a waiting message is framed now); nothing
    /// while the socket is watched for room, when the outbox is empty, or once the connection has ended.
    package mutating func nextWrite() -> NextWrite {
        withLive { live, _ in
            guard live.writeWait.isNotWatching, let first = live.outbox.first else { return .nothing }
            switch first.content {
            case .frame(let bytes):
                return .bytes(bytes[live.written...])
            case .message(let message):
                guard let bytes = live.protocolState.frame(message) else {
                    preconditionFailure("a waiting message outlived the connection's last frame")
                }
                live.outbox[0].content = .frame(bytes)
                return .bytes(bytes[...])
            }
        } ?? .nothing
    }

    /// The socket took `count` bytes of the first frame; a frame written whole answers its send.
    package mutating func wrote(_ count: Int, now: UInt64) -> [Action] {
        guard
            let actions = withLive({ live, _ -> [Action] in
                guard case .frame(let bytes) = live.outbox.first?.content, live.writeWait.isNotWatching else {
                    preconditionFailure("bytes written with no frame to write")
                }
                if count > 0, case .woken = live.writeWait { live.writeWait = .woken(since: now) }
                live.written += count
                guard live.written == bytes.count else { return [] }
                let first = live.outbox.removeFirst()
                live.written = 0
                if live.outbox.isEmpty { live.writeWait = .idle }
                guard let sender = first.sender else { return [] }
                return [.answerSend(sender.waiter, .success(()))]
            })
        else { preconditionFailure("bytes written after the end") }
        return actions
    }

    /// The socket takes no more now: watch it for room, and check for a stall.
    package mutating func writeBlocked(now: UInt64) -> [Action] {
        let sendTimeout = sendTimeout
        return withLive { live, _ in
            let since: UInt64
            switch live.writeWait {
            case .waiting: preconditionFailure("a write while the socket is watched")
            // A wait begins a stall, unless it follows a writable event that took no byte.
            case .idle: since = now
            case .woken(let woken): since = woken
            }
            live.writeWait = .waiting(since: since)
            // No check for no bound (infinite, or over 31 years).
            guard !live.isCheckingForStall, sendTimeout.isBoundedTimeout else { return [.watchWritable] }
            live.isCheckingForStall = true
            return [.watchWritable, .checkForStall(after: sendTimeout)]
        } ?? []
    }

    /// The socket has room: stop watching it and write.
    package mutating func writable() -> [Action] {
        withLive { live, _ in
            guard case .waiting(let since) = live.writeWait else { return [] }
            live.writeWait = .woken(since: since)
            return [.stopWatchingWritable, .write]
        } ?? []
    }

    /// The stall check's time came: the connection ends as dead when the socket has taken no byte of a waiting
    /// frame for the send timeout; otherwise another check is scheduled while a frame waits.
    package mutating func stallCheck(now: UInt64) -> [Action] {
        let sendTimeout = sendTimeout
        let check: Double?? = withLive { live, _ -> Double? in
            live.isCheckingForStall = false
            guard case .waiting(let since) = live.writeWait else { return nil }
            let still = Double(now &- since) / 1e9
            guard still < sendTimeout else { return 0 }
            live.isCheckingForStall = true
            return sendTimeout - still
        }
        switch check {
        case .some(.some(0)):
            let error = NetworkError.transport(
                .timedOut,
                underlyingError: URLError(
                    .timedOut, description: "the server took no byte of a message for \(sendTimeout) s"))
            return end(code: nil, reason: "", error: error)
        case .some(.some(let seconds)): return [.checkForStall(after: seconds)]
        case .some(.none), .none: return []
        }
    }

    /// A keep-alive tick: the last tick's ping unanswered means a dead peer; otherwise another ping goes out.
    package mutating func keepAliveTick() -> [Action] {
        guard let keepAlive else { preconditionFailure("a keep-alive tick without keep-alive") }
        // Whether the peer is dead; otherwise the actions of the next ping.
        let tick: (isDead: Bool, actions: [Action])? = withLive { live, _ in
            if live.keepAlivePending != nil { return (true, []) }
            live.keepAlives &+= 1
            let payload = withUnsafeBytes(of: live.keepAlives.bigEndian) { Array("keep-alive ".utf8) + $0 }
            guard let bytes = live.protocolState.ping(payload) else { return (false, []) }
            live.keepAlivePending = payload
            live.outbox.append(Outgoing(content: .frame(bytes), sender: nil))
            return (false, [.write])
        }
        guard let tick else { return [] }
        if tick.isDead {
            let error = NetworkError.transport(
                .timedOut,
                underlyingError: URLError(
                    .timedOut, description: "no pong to a keep-alive ping within \(keepAlive) s"))
            return end(code: nil, reason: "", error: error)
        }
        return tick.actions
    }

    /// The socket failed or the peer dropped the connection (a read or a write failed, or the peer closed it).
    package mutating func failed(_ error: NetworkError) -> [Action] {
        end(code: nil, reason: "", error: error)
    }

    /// Ends the connection, once: every waiter is answered (a receive with the end, sends and pings with
    /// ``lostError``, closes done), and the connection is released. Later, nothing.
    package mutating func end(code: UInt16?, reason: String, error: NetworkError?) -> [Action] {
        let live: Live
        var closers: [Waiters.Close] = []
        switch state {
        case .open(let open): live = open
        case .closing(let closing, let waiting):
            live = closing
            closers = waiting
        case .ended: return []
        case .modifying: preconditionFailure("an end while the state changes")
        }
        // The protocol's rules learn of every end, a drop included; their value then goes with the live state (its
        // zlib streams freed): an ended connection makes no frame, and reads nothing more.
        var protocolState = live.protocolState
        _ = protocolState.transportFailed()
        let ending = Ending(code: code, reason: reason, error: error)
        state = .ended(Ended(ending: ending, received: live.received))
        let lost = lostError
        var actions: [Action] = []
        if let receiver = live.receiver {
            actions.append(.answerReceive(receiver.waiter, error.map { .failure($0) } ?? .success(nil)))
        }
        actions += live.pings.map { .answerPing($0.waiter, .failure(lost)) }
        actions += live.outbox.compactMap { $0.sender.map { .answerSend($0.waiter, .failure(lost)) } }
        actions += closers.map { .answerClose($0) }
        let writeSuspended: Bool
        if case .waiting = live.writeWait { writeSuspended = false } else { writeSuspended = true }
        actions.append(.release(readSuspended: !live.isReading, writeSuspended: writeSuspended))
        return actions
    }

    /// Runs `body` on the live connection's fields in place, with whether it is closing; `nil` once ended.
    private mutating func withLive<Result>(_ body: (inout Live, _ isClosing: Bool) -> Result) -> Result? {
        // The state is moved out and back, not copied: a copy retained and released every reference the live
        // connection holds (its arrays, the protocol's buffers, the waiters) on each event, a few µs a message.
        switch takeState() {
        case .open(var live):
            defer { state = .open(live) }
            return body(&live, false)
        case .closing(var live, let closers):
            defer { state = .closing(live, closers: closers) }
            return body(&live, true)
        case .ended(let ended):
            state = .ended(ended)
            return nil
        case .modifying:
            preconditionFailure("an event while the state changes")
        }
    }

    /// The state, moved out of the machine, which holds ``State/modifying`` until it is put back.
    private mutating func takeState() -> State {
        var taken = State.modifying
        swap(&taken, &state)
        return taken
    }
}

extension CurlWebSocketStateMachine.WriteWait {
    /// Whether the socket's writable event is not being watched: writes may go.
    var isNotWatching: Bool {
        if case .waiting = self { return false }
        return true
    }
}

extension WebSocketConnectionState {
    /// The frame of `message`, or `nil` once the connection is closing or closed.
    mutating func frame(_ message: WebSocketMessage) -> [UInt8]? {
        switch message {
        case .text(let text): send(text: text)
        case .binary(let data): send(binary: data)
        }
    }
}
