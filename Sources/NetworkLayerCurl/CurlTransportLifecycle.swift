/// A ``CurlTransport``'s life as one value: what it has under way (sends whose callers wait or whose streamed body is
/// still read, and the WebSockets it opened that have not ended), and whether it runs, drains its work for a
/// shutdown, or has stopped. Events in, actions out; the transport carries the actions out after its lock, and the
/// machine is tested without I/O.
///
/// `running` → (``shutDown(waiter:)``) → `draining` → (the last work ends, or the grace period does) → `stopped`:
/// the moment the last send or WebSocket ends, the shutdown's waiters are named, with no clock polling for it. An
/// event that cannot happen in a state (a send ending that never started) stops the process.
struct CurlTransportLifecycle<Waiter, Socket> {
    /// What the transport has under way.
    struct Work {
        /// Sends (a WebSocket's handshake included) that took work and have not ended.
        var sends = 0
        /// The WebSockets that are open or closing, by number.
        var webSockets: [Int: Socket] = [:]

        /// Whether nothing is under way.
        var isEmpty: Bool { sends == 0 && webSockets.isEmpty }
    }

    /// Where the transport is.
    enum State {
        /// It takes work.
        case running(Work)
        /// ``CurlTransport/shutdown(gracePeriod:)`` was called: no new work is taken, and what is under way may
        /// finish until the grace period ends; `waiters` are the shutdown calls that wait for that.
        case draining(Work, waiters: [Waiter])
        /// No work is taken or waited for: the loops stop, and what is left is answered with the shutdown's error.
        case stopped
    }

    /// What the transport does after an event.
    enum Action {
        /// Nothing.
        case none
        /// Start the grace period's clock and close these WebSockets with 1001 (going away).
        case drain(closing: [Socket])
        /// Close this WebSocket, opened as the transport shut down, with 1001 (going away); its opener is refused.
        case closeGoingAway(Socket)
        /// Stop the loops, answer what is left with the shutdown's error, and resume these shutdown calls.
        case stop([Waiter])
    }

    /// Where the transport is now.
    private(set) var state: State = .running(Work())

    // MARK: Events

    /// A send, stream, upload or WebSocket handshake asks to start: whether it may (only while running).
    mutating func accept() -> Bool {
        guard case .running(var work) = state else { return false }
        work.sends += 1
        state = .running(work)
        return true
    }

    /// A send taken by ``accept()`` ended: its caller has its answer, and a streamed body's reader has read it all
    /// or gone.
    mutating func sendEnded() -> Action {
        switch state {
        case .running(var work):
            guard work.sends > 0 else { preconditionFailure("\(#function) in \(self)") }
            work.sends -= 1
            state = .running(work)
            return .none
        case .draining(var work, let waiters):
            guard work.sends > 0 else { preconditionFailure("\(#function) in \(self)") }
            work.sends -= 1
            return drained(work, waiters: waiters)
        case .stopped:
            return .none  // answered by the stop, or finishing as it was taken out
        }
    }

    /// A WebSocket handshake taken by ``accept()`` succeeded: the socket numbered `id` is open and counted until
    /// ``webSocketEnded(_:)``; one that opens as the transport shuts down is closed at once.
    mutating func webSocketOpened(_ id: Int, _ socket: Socket) -> Action {
        switch state {
        case .running(var work):
            guard work.sends > 0, work.webSockets[id] == nil else { preconditionFailure("\(#function) in \(self)") }
            work.sends -= 1
            work.webSockets[id] = socket
            state = .running(work)
            return .none
        case .draining(var work, let waiters):
            guard work.sends > 0, work.webSockets[id] == nil else { preconditionFailure("\(#function) in \(self)") }
            work.sends -= 1
            work.webSockets[id] = socket
            state = .draining(work, waiters: waiters)
            return .closeGoingAway(socket)
        case .stopped:
            return .closeGoingAway(socket)
        }
    }

    /// The WebSocket numbered `id` ended (closed, failed or dropped) and freed its connection.
    mutating func webSocketEnded(_ id: Int) -> Action {
        switch state {
        case .running(var work):
            guard work.webSockets.removeValue(forKey: id) != nil else {
                preconditionFailure("\(#function) in \(self)")
            }
            state = .running(work)
            return .none
        case .draining(var work, let waiters):
            guard work.webSockets.removeValue(forKey: id) != nil else {
                preconditionFailure("\(#function) in \(self)")
            }
            return drained(work, waiters: waiters)
        case .stopped:
            return .none  // one that opened after the stop, or ended after it
        }
    }

    /// A shutdown call: `waiter` is resumed once everything under way has ended or the grace period is over (at
    /// once when nothing is under way, or the transport has stopped already).
    mutating func shutDown(waiter: Waiter) -> Action {
        switch state {
        case .running(let work):
            guard !work.isEmpty else {
                state = .stopped
                return .stop([waiter])
            }
            state = .draining(work, waiters: [waiter])
            return .drain(closing: work.webSockets.sorted { $0.key < $1.key }.map(\.value))
        case .draining(let work, let waiters):
            state = .draining(work, waiters: waiters + [waiter])
            return .none
        case .stopped:
            return .stop([waiter])
        }
    }

    /// The grace period ended (its clock, or a shutdown call's cancellation): what is under way is left to the stop.
    mutating func gracePeriodEnded() -> Action {
        guard case .draining(_, let waiters) = state else { return .none }  // a clock that outlived the drain
        state = .stopped
        return .stop(waiters)
    }

    // MARK: What the state says

    /// Whether the transport takes work.
    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// The state after a drain's work shrank to `work`: stopped when nothing is left.
    private mutating func drained(_ work: Work, waiters: [Waiter]) -> Action {
        guard work.isEmpty else {
            state = .draining(work, waiters: waiters)
            return .none
        }
        state = .stopped
        return .stop(waiters)
    }
}

extension CurlTransportLifecycle: Sendable where Waiter: Sendable, Socket: Sendable {}
extension CurlTransportLifecycle.Work: Sendable where Waiter: Sendable, Socket: Sendable {}
extension CurlTransportLifecycle.State: Sendable where Waiter: Sendable, Socket: Sendable {}
extension CurlTransportLifecycle.Action: Sendable where Waiter: Sendable, Socket: Sendable {}

extension CurlTransportLifecycle: CustomStringConvertible {
    /// The state, for a trap's message: "running(1 send, 2 WebSockets)".
    var description: String { state.description }
}

extension CurlTransportLifecycle.Work: CustomStringConvertible {
    /// "1 send, 2 WebSockets".
    var description: String {
        "\(sends) send\(sends == 1 ? "" : "s"), \(webSockets.count) WebSocket\(webSockets.count == 1 ? "" : "s")"
    }
}

extension CurlTransportLifecycle.State: CustomStringConvertible {
    /// "running(…)", "draining(…, 1 waiter)" or "stopped".
    var description: String {
        switch self {
        case .running(let work): "running(\(work))"
        case .draining(let work, let waiters): "draining(\(work), \(waiters.count) waiting)"
        case .stopped: "stopped"
        }
    }
}

extension CurlTransportLifecycle.Action: CustomStringConvertible {
    /// "none", "drain(closing 2)", "closeGoingAway", "stop(1)".
    var description: String {
        switch self {
        case .none: "none"
        case .drain(let sockets): "drain(closing \(sockets.count))"
        case .closeGoingAway: "closeGoingAway"
        case .stop(let waiters): "stop(\(waiters.count))"
        }
    }
}
