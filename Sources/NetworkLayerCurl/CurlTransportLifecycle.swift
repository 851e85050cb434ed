/// A ``CurlTransport``'s life as one value: whether it runs, drains its work for a shutdown, or has stopped, with the
/// WebSockets it opened that have not ended, and whether sends are still under way as it drains. Events in, actions
/// out; the transport carries the actions out after its lock, and the machine is tested without I/O.
///
/// `running` → (``shutDown(waiter:sendsUnderWay:)``) → `draining` → (the last send and WebSocket end, or the grace
/// period does) → `stopped`: the moment the last work ends, the shutdown's waiters are named, with no clock polling
/// for it. The sends themselves are counted by the transport's ``CurlWorkGate`` (an atomic word, so that a send
/// takes no lock to start or end), which tells the machine when the last one of a closed gate ends. An event that
/// cannot happen in a state (the last send ending twice, a WebSocket ending that never opened) stops the process.
struct CurlTransportLifecycle<Waiter, Socket> {
    /// Where the transport is.
    enum State {
        /// It takes work; `webSockets` are the open ones, by number.
        case running(webSockets: [Int: Socket])
        /// ``CurlTransport/shutdown(gracePeriod:)`` was called: no new work is taken, and what is under way may
        /// finish until the grace period ends; `waiters` are the shutdown calls that wait for that.
        case draining(webSockets: [Int: Socket], sendsUnderWay: Bool, waiters: [Waiter])
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
    private(set) var state = State.running(webSockets: [:])

    // MARK: Events

    /// A shutdown call: `waiter` is resumed once everything under way has ended or the grace period is over (at
    /// once when nothing is under way, or the transport has stopped already). `sendsUnderWay` is what the gate held
    /// as this call closed it (0 for every later call).
    mutating func shutDown(waiter: Waiter, sendsUnderWay: Int) -> Action {
        switch state {
        case .running(let webSockets):
            guard sendsUnderWay > 0 || !webSockets.isEmpty else {
                state = .stopped
                return .stop([waiter])
            }
            state = .draining(webSockets: webSockets, sendsUnderWay: sendsUnderWay > 0, waiters: [waiter])
            return .drain(closing: webSockets.sorted { $0.key < $1.key }.map(\.value))
        case .draining(let webSockets, let sends, let waiters):
            state = .draining(webSockets: webSockets, sendsUnderWay: sends, waiters: waiters + [waiter])
            return .none
        case .stopped:
            return .stop([waiter])
        }
    }

    /// The last send of the closed gate ended: its caller has its answer, and a streamed body's reader has read it
    /// all or gone.
    mutating func sendsEnded() -> Action {
        switch state {
        case .draining(let webSockets, true, let waiters):
            return drained(webSockets, sendsUnderWay: false, waiters: waiters)
        case .running, .draining(_, false, _):
            preconditionFailure("\(#function) in \(self)")
        case .stopped:
            return .none  // the grace period ended first
        }
    }

    /// A WebSocket handshake (a send the gate counts until it returns) succeeded: the socket numbered `id` is open
    /// and counted until ``webSocketEnded(_:)``; one that opens as the transport shuts down is closed at once.
    mutating func webSocketOpened(_ id: Int, _ socket: Socket) -> Action {
        switch state {
        case .running(var webSockets):
            guard webSockets.updateValue(socket, forKey: id) == nil else {
                preconditionFailure("\(#function) in \(self)")
            }
            state = .running(webSockets: webSockets)
            return .none
        case .draining(var webSockets, true, let waiters):
            guard webSockets.updateValue(socket, forKey: id) == nil else {
                preconditionFailure("\(#function) in \(self)")
            }
            state = .draining(webSockets: webSockets, sendsUnderWay: true, waiters: waiters)
            return .closeGoingAway(socket)
        case .draining(_, false, _):
            // Its handshake is a send under way: the gate cannot have emptied before it.
            preconditionFailure("\(#function) in \(self)")
        case .stopped:
            return .closeGoingAway(socket)
        }
    }

    /// The WebSocket numbered `id` ended (closed, failed or dropped) and freed its connection.
    mutating func webSocketEnded(_ id: Int) -> Action {
        switch state {
        case .running(var webSockets):
            guard webSockets.removeValue(forKey: id) != nil else { preconditionFailure("\(#function) in \(self)") }
            state = .running(webSockets: webSockets)
            return .none
        case .draining(var webSockets, let sends, let waiters):
            guard webSockets.removeValue(forKey: id) != nil else { preconditionFailure("\(#function) in \(self)") }
            return drained(webSockets, sendsUnderWay: sends, waiters: waiters)
        case .stopped:
            return .none  // one that opened after the stop, or ended after it
        }
    }

    /// The grace period ended (its clock, or a shutdown call's cancellation): what is under way is left to the stop.
    mutating func gracePeriodEnded() -> Action {
        guard case .draining(_, _, let waiters) = state else { return .none }  // a clock that outlived the drain
        state = .stopped
        return .stop(waiters)
    }

    /// The state after a drain's work shrank: stopped when nothing is left.
    private mutating func drained(_ webSockets: [Int: Socket], sendsUnderWay: Bool, waiters: [Waiter]) -> Action {
        guard !sendsUnderWay && webSockets.isEmpty else {
            state = .draining(webSockets: webSockets, sendsUnderWay: sendsUnderWay, waiters: waiters)
            return .none
        }
        state = .stopped
        return .stop(waiters)
    }
}

extension CurlTransportLifecycle: Sendable where Waiter: Sendable, Socket: Sendable {}
extension CurlTransportLifecycle.State: Sendable where Waiter: Sendable, Socket: Sendable {}
extension CurlTransportLifecycle.Action: Sendable where Waiter: Sendable, Socket: Sendable {}

extension CurlTransportLifecycle: CustomStringConvertible {
    /// The state, for a trap's message: "running(2 WebSockets)".
    var description: String { state.description }
}

extension CurlTransportLifecycle.State: CustomStringConvertible {
    /// "running(1 WebSocket)", "draining(sends, 0 WebSockets, 1 waiting)" or "stopped".
    var description: String {
        func count(_ webSockets: [Int: Socket]) -> String {
            "\(webSockets.count) WebSocket\(webSockets.count == 1 ? "" : "s")"
        }
        switch self {
        case .running(let webSockets): return "running(\(count(webSockets)))"
        case .draining(let webSockets, let sends, let waiters):
            return "draining(\(sends ? "sends" : "no sends"), \(count(webSockets)), \(waiters.count) waiting)"
        case .stopped: return "stopped"
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
