public import Foundation
public import NetworkLayerCore
import NetworkLayerEvents
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// A WebSocket opened with `network.webSocket(_:)`: send messages, read them from ``messages``, ping, close.
///
/// ```swift
/// let socket = try await network.webSocket(ChatRoute.room("swift"))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     switch message {
///     case .text(let text): print(text)
///     case .binary(let data): print(data.count)
///     }
/// }
/// print(socket.closeCode ?? "dropped", socket.closeReason)
/// ```
///
/// ``messages`` ends without an error when the server closes the connection and with a ``NetworkError`` when it
/// drops (``NetworkError/TransportFailure/connectionLost``) or breaks the protocol
/// (``NetworkError/TransportFailure/badResponse``, ``NetworkError/TransportFailure/responseTooLarge`` for a message
/// over the size limit). Leaving the loop (`break`, an error thrown in it, the task cancelled) closes the connection
/// with ``CloseCode/goingAway``, and so does dropping the last reference to the socket.
///
/// Made with a ``ReconnectPolicy`` other than ``ReconnectPolicy/never``, the socket is a channel that stays up: after
/// a drop, or a close whose code allows it (``CloseCode/allowsReconnecting``), it connects again as ``messages`` is
/// read, runs the `onConnect` closure on the new connection, and goes on. Between two connections ``send(_:)``
/// fails with ``NetworkError/TransportFailure/connectionLost`` and the message is not sent: send what the server must
/// not miss from `onConnect`.
public final class WebSocket: Sendable {
    /// A message: `.text(String)` or `.binary(Data)`.
    public typealias Message = WebSocketMessage

    /// What runs on every new connection before ``messages`` goes on.
    public typealias ConnectHandler = @Sendable (WebSocket) async throws -> Void

    /// Where the socket is in its life.
    private enum Phase {
        /// Connected: the channel of the current connection.
        case open(any WebSocketChannel)
        /// Between two connections.
        case reconnecting
        /// The app called ``close(code:reason:)``: the close handshake is under way on the channel.
        case closing(any WebSocketChannel)
        /// The app called ``close(code:reason:)``, or the last connection ended for good.
        case finished(code: UInt16?, reason: String)
    }

    private let state: Locked<Phase>
    private let connector: Connector
    /// How long ``ping(timeout:)`` waits by default: the network's timeout.
    private let pingTimeout: TimeInterval

    /// The subprotocol the server chose on the current connection, if any.
    public var subprotocol: String? {
        state.withLock { phase in
            if case .open(let channel) = phase { return channel.subprotocol }
            return nil
        }
    }

    /// How the connection ended: the close code the server sent (or the one the client failed the connection
    /// with, such as ``CloseCode/protocolError``); `nil` while it is open, and after a drop.
    public var closeCode: CloseCode? {
        state.withLock { phase in
            switch phase {
            case .open, .reconnecting, .closing: nil
            case .finished(let code, _): code.map(CloseCode.init(rawValue:))
            }
        }
    }

    /// The reason sent with ``closeCode``; empty when none was given or the connection is open.
    public var closeReason: String {
        state.withLock { phase in
            if case .finished(_, let reason) = phase { return reason }
            return ""
        }
    }

    init(channel: any WebSocketChannel, connector: Connector, pingTimeout: TimeInterval) {
        state = Locked(.open(channel))
        self.connector = connector
        self.pingTimeout = pingTimeout
    }

    /// Sends a message, returning once the connection has taken it (it waits while the socket cannot take more).
    ///
    /// - Throws: ``NetworkError`` with ``NetworkError/TransportFailure/connectionLost`` once the socket is closed or
    ///   closing, or between two connections of a reconnecting socket (the message is not sent).
    public func send(_ message: Message) async throws(NetworkError) {
        try await currentChannel().send(message)
    }

    /// Sends a ping and returns when the pong arrives.
    ///
    /// - Parameter timeout: How long to wait for the pong, in seconds; `nil` (the default) waits the network's
    ///   ``Network/timeout``. A ping that times out leaves the connection open: whether a silent peer is dead is
    ///   yours to decide (or the settings' ``WebSocketSettings/keepAliveInterval``).
    /// - Throws: ``NetworkError`` with ``NetworkError/TransportFailure/timedOut`` when no pong came in time, or
    ///   ``NetworkError/TransportFailure/connectionLost`` when the socket is closed.
    public func ping(timeout: TimeInterval? = nil) async throws(NetworkError) {
        try await currentChannel().ping(timeout: timeout ?? pingTimeout)
    }

    /// Closes the socket: sends the close frame with `code` and `reason`, and returns once the server has answered
    /// it, or after the settings' ``WebSocketSettings/closeTimeout``; ``closeCode`` is set then. A reconnecting
    /// socket connects no more. While a close is under way, another call waits for it; once the socket has
    /// ended, a call returns at once.
    ///
    /// - Parameters:
    ///   - code: Why the socket closes. Defaults to ``CloseCode/normalClosure``.
    ///   - reason: A short text for the server, at most 123 bytes of UTF-8 (longer is cut at a character).
    public func close(code: CloseCode = .normalClosure, reason: String = "") async {
        let channel: (any WebSocketChannel)? = state.withLock { phase in
            switch phase {
            case .open(let channel):
                phase = .closing(channel)
                return channel
            case .reconnecting:
                phase = .finished(code: code.rawValue, reason: reason)
                return nil
            case .closing(let channel):
                // Closing already: this call waits for the same end.
                return channel
            case .finished:
                return nil
            }
        }
        guard let channel else { return }
        await channel.close(code: code.rawValue, reason: reason)
        let ended = (channel.closeCode ?? code.rawValue, channel.closeReason)
        state.withLock { phase in
            if case .closing(let closing) = phase, closing === channel {
                phase = .finished(code: ended.0, reason: ended.1)
            }
        }
    }

    /// The channel to read from: the current connection's, or the one closing.
    private func readableChannel() -> (any WebSocketChannel)? {
        state.withLock { phase in
            switch phase {
            case .open(let channel), .closing(let channel): channel
            case .reconnecting, .finished: nil
            }
        }
    }

    /// The channel of the current connection, or the error a send or ping gets without one.
    private func currentChannel() throws(NetworkError) -> any WebSocketChannel {
        let channel: (any WebSocketChannel)? = state.withLock { phase in
            if case .open(let channel) = phase { return channel }
            return nil
        }
        guard let channel else { throw Self.lost("the WebSocket is closed or between two connections") }
        return channel
    }

    /// The next message for ``messages``: from the current connection, or after connecting again; `nil` once the
    /// socket has ended cleanly.
    fileprivate func nextMessage() async throws(NetworkError) -> Message? {
        while true {
            guard let channel = readableChannel() else { return nil }
            let outcome: Result<Message?, NetworkError>
            do throws(NetworkError) {
                outcome = .success(try await channel.receive())
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let message?):
                connector.delivered()
                return message
            case .failure(.cancelled):
                throw .cancelled
            case .success(nil), .failure:
                let error: NetworkError? = if case .failure(let error) = outcome { error } else { nil }
                let code = channel.closeCode
                guard beginReconnecting(after: channel, error: error, code: code) else {
                    if let error { throw error }
                    return nil
                }
                do throws(NetworkError) {
                    try await reconnect(after: error ?? Self.closedByServer(code))
                } catch {
                    state.withLock { phase in
                        if case .reconnecting = phase { phase = .finished(code: code, reason: channel.closeReason) }
                    }
                    throw error
                }
            }
        }
    }

    /// Marks the socket as between connections if it may connect again after `channel` ended; otherwise as
    /// finished with the channel's close code.
    private func beginReconnecting(after channel: any WebSocketChannel, error: NetworkError?, code: UInt16?) -> Bool {
        let allowed = connector.allowsReconnecting(after: error, code: code)
        return state.withLock { phase in
            guard case .open(let current) = phase, current === channel else { return false }
            phase = allowed ? .reconnecting : .finished(code: code, reason: channel.closeReason)
            return allowed
        }
    }

    /// The error of a connection the server closed with a code that lets a channel connect again.
    private static func closedByServer(_ code: UInt16?) -> NetworkError {
        lost("the server closed the WebSocket (\(code.map(String.init) ?? "no code"))")
    }

    /// A connection lost or closed, saying how.
    private static func lost(_ description: String) -> NetworkError {
        .transport(.connectionLost, underlyingError: URLError(.networkConnectionLost, description: description))
    }

    /// Waits as the policy says and connects again, until a connection opens and its `onConnect` succeeds, or the
    /// policy allows no more attempts (the last attempt's error is thrown), or the app closes the socket.
    private func reconnect(after drop: NetworkError) async throws(NetworkError) {
        var last = drop
        while true {
            guard try await connector.waitBeforeAttempt() else { throw last }
            let stillWanted = state.withLock { phase in if case .reconnecting = phase { true } else { false } }
            guard stillWanted else { return }
            let channel: any WebSocketChannel
            do throws(NetworkError) {
                channel = try await connector.open()
            } catch {
                guard connector.mayTryAgain(after: error) else { throw error }
                last = error
                continue
            }
            let installed = state.withLock { phase in
                guard case .reconnecting = phase else { return false }
                phase = .open(channel)
                return true
            }
            guard installed else {
                await channel.close(code: CloseCode.normalClosure.rawValue, reason: "")
                return
            }
            do throws(NetworkError) {
                try await connector.runOnConnect(self)
                return
            } catch {
                // The new connection is not ready for messages: it counts as a failed attempt.
                let back = state.withLock { phase in
                    guard case .open(let current) = phase, current === channel else { return false }
                    phase = .reconnecting
                    return true
                }
                await channel.close(code: CloseCode.goingAway.rawValue, reason: "")
                guard back, connector.mayTryAgain(after: error) else { throw error }
                last = error
            }
        }
    }

    deinit {
        // Dropped while open: the server is told, as when the app leaves ``messages``.
        if case .open(let channel) = state.withLock({ $0 }) {
            Task { await channel.close(code: CloseCode.goingAway.rawValue, reason: "") }
        }
    }
}

extension WebSocket {
    /// The messages as they arrive, in order; see ``WebSocket`` for how it ends. One loop at a time reads them, and
    /// leaving that loop closes the socket.
    public var messages: Messages { Messages(socket: self) }

    /// The messages of a ``WebSocket``, as they arrive.
    public struct Messages: AsyncSequence, Sendable {
        /// A message: `.text(String)` or `.binary(Data)`.
        public typealias Element = Message
        fileprivate let socket: WebSocket

        /// Starts reading.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(reader: Reader(socket: socket))
        }

        /// Reads the next message.
        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate let reader: Reader

            /// The next message, or `nil` once the socket closed cleanly.
            ///
            /// - Throws: ``NetworkError``: how the connection failed, or `.cancelled`.
            public mutating func next() async throws -> Message? {
                try await reader.socket.nextMessage()
            }
        }
    }

    /// Closes the socket when the loop reading it ends, whichever way.
    fileprivate final class Reader: Sendable {
        let socket: WebSocket

        init(socket: WebSocket) {
            self.socket = socket
        }

        deinit {
            let socket = socket
            Task { await socket.close(code: .goingAway) }
        }
    }
}
