import Foundation
public import NetworkLayerCore
public import NetworkLayerEvents
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension Network {
    /// Opens a WebSocket to a route's URL (ws, wss, http or https) and returns it once the handshake is done.
    ///
    /// ```swift
    /// let socket = try await network.webSocket(ChatRoute.room("swift"))
    /// try await socket.send(.text("hello"))
    /// for try await message in socket.messages { print(message) }
    /// ```
    ///
    /// The handshake is a request like any other: built from the route (its headers and options), sent through the
    /// middleware (default headers, a token and its refresh after a `401`, logging) within ``Network/timeout``, with
    /// the transport's TLS rules. `CurlTransport` opens WebSockets on Linux and `URLSessionTransport` on Apple
    /// platforms.
    ///
    /// A channel that stays up reconnects after a drop, running `onConnect` on every connection (the first included)
    /// before ``WebSocket/messages`` goes on, so that the app can subscribe again from where it was:
    ///
    /// ```swift
    /// let feed = try await network.webSocket(FeedRoute.live, reconnect: .automatic) { socket in
    ///     try await socket.send(.text(#"{"resume":"\#(cursor)"}"#))
    /// }
    /// ```
    ///
    /// It connects again after a drop (no close frame, a dead peer) or a close whose code allows it
    /// (``WebSocket/CloseCode/allowsReconnecting``: the server going away or restarting, not a policy violation or
    /// a code of the app's own), waiting as `reconnect` says; a connection that delivers a message starts the count
    /// of attempts again. Never after ``WebSocket/close(code:reason:)``. Each attempt's handshake goes through the
    /// middleware again (a refreshed token).
    ///
    /// - Parameters:
    ///   - route: Where to connect; its method must be `GET`.
    ///   - settings: Subprotocols, the message size limit (16 MiB by default), compression (offered by default),
    ///     a keep-alive ping interval and the close timeout.
    ///   - reconnect: Whether and how to connect again. Defaults to ``ReconnectPolicy/never``.
    ///   - onConnect: Runs on every new connection before messages flow; an error it throws on the first fails
    ///     this call, on a later one counts as a failed attempt. An error of your own type reaches you as
    ///     ``NetworkError/middleware(_:underlyingError:)`` named `"onConnect"`.
    /// - Throws: ``NetworkError``: `.invalidRequest` for a route that cannot be built or is not a `GET`;
    ///   `.unacceptableStatus` with the status, fields and body of an answer other than `101`;
    ///   `.transport(.badResponse)` for a server that fails the handshake's checks (a wrong `Sec-WebSocket-Accept`,
    ///   an extension or subprotocol not offered); `.transport(.other)` for a transport that cannot open WebSockets;
    ///   a transport failure, a middleware's error or `.cancelled` as `send` throws them.
    public func webSocket(
        _ route: some URLRequestProtocol,
        settings: WebSocketSettings = WebSocketSettings(),
        reconnect: ReconnectPolicy = .never,
        onConnect: WebSocket.ConnectHandler? = nil
    ) async throws(NetworkError) -> WebSocket {
        let connector = WebSocket.Connector(
            network: self, request: try request(for: route), options: route.options, settings: settings,
            policy: reconnect, onConnect: onConnect)
        let channel = try await connector.open()
        let socket = WebSocket(channel: channel, connector: connector, pingTimeout: timeout)
        do throws(NetworkError) {
            try await connector.runOnConnect(socket)
        } catch {
            await socket.close(code: .goingAway)
            throw error
        }
        return socket
    }
}

extension WebSocket {
    /// Why a WebSocket closed (RFC 6455, section 7.4): a registered code, or one of an application's own (4000–4999).
    public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as it travels in the close frame.
        public let rawValue: UInt16

        /// A code; any value, though only 1000–1003, 1007–1014 and 3000–4999 may be sent.
        public init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        /// 1000: the purpose of the connection is fulfilled.
        public static let normalClosure = CloseCode(rawValue: 1000)
        /// 1001: an endpoint is going away (a server shutting down, an app leaving the screen).
        public static let goingAway = CloseCode(rawValue: 1001)
        /// 1002: an endpoint broke the protocol.
        public static let protocolError = CloseCode(rawValue: 1002)
        /// 1003: a message of a type the endpoint cannot accept (binary to a text-only server).
        public static let unsupportedData = CloseCode(rawValue: 1003)
        /// 1007: a text message that is not UTF-8, or data inconsistent with its type.
        public static let invalidPayload = CloseCode(rawValue: 1007)
        /// 1008: a message that violates the endpoint's policy.
        public static let policyViolation = CloseCode(rawValue: 1008)
        /// 1009: a message too big to process.
        public static let messageTooBig = CloseCode(rawValue: 1009)
        /// 1010: the server did not agree to an extension the client requires.
        public static let mandatoryExtensionMissing = CloseCode(rawValue: 1010)
        /// 1011: the server met an unexpected condition.
        public static let internalServerError = CloseCode(rawValue: 1011)
        /// 1012: the server is restarting.
        public static let serviceRestart = CloseCode(rawValue: 1012)
        /// 1013: the server is overloaded: try again later.
        public static let tryAgainLater = CloseCode(rawValue: 1013)

        /// Whether a reconnecting socket connects again after a close with this code: after the server going away,
        /// restarting, failing or overloaded (1001, 1011–1014) and codes that cannot be sent (1005, 1006); not after
        /// a normal closure, a violation of the protocol or of a policy, data refused (1000, 1002, 1003, 1007–1010),
        /// nor after a code of the application's own (3000–4999), which a server sends to say "do not come back".
        public var allowsReconnecting: Bool {
            switch rawValue {
            case 1001, 1005, 1006, 1011...1014: true
            default: false
            }
        }

        /// The number, for messages.
        public var description: String { String(rawValue) }
    }

    /// Opens the connections of one socket and keeps the count of failed attempts in a row.
    final class Connector: Sendable {
        private let network: Network
        private let request: URLRequest
        private let options: RequestOptions
        private let settings: WebSocketSettings
        private let policy: ReconnectPolicy
        private let onConnect: ConnectHandler?
        private let failures = Locked(0)

        init(
            network: Network, request: URLRequest, options: RequestOptions, settings: WebSocketSettings,
            policy: ReconnectPolicy, onConnect: ConnectHandler?
        ) {
            self.network = network
            self.request = request
            self.options = options
            self.settings = settings
            self.policy = policy
            self.onConnect = onConnect
        }

        /// Opens a connection: the handshake through the network's middleware and transport.
        func open() async throws(NetworkError) -> any WebSocketChannel {
            try await network.openWebSocket(prepared: request, options: options, settings: settings).channel
        }

        /// Runs the app's closure on a new connection.
        func runOnConnect(_ socket: WebSocket) async throws(NetworkError) {
            guard let onConnect else { return }
            do {
                try await onConnect(socket)
            } catch let error as NetworkError {
                throw error
            } catch is CancellationError {
                throw .cancelled
            } catch {
                throw .middleware("onConnect", underlyingError: error)
            }
        }

        /// A connection delivered a message: the count of failed attempts starts again.
        func delivered() {
            failures.withLock { $0 = 0 }
        }

        /// Whether the socket connects again after a connection that ended with `error`, or cleanly with `code`.
        func allowsReconnecting(after error: NetworkError?, code: UInt16?) -> Bool {
            guard policy.allowsReconnecting(request, options: options) else { return false }
            if let error { return error.transience?.meansUnreachable == true }
            return code.map { CloseCode(rawValue: $0).allowsReconnecting } ?? true
        }

        /// Whether an attempt that failed with `error` may be followed by another: a server not reachable yet, or
        /// answering "not now" with a status `RetryMiddleware` retries too (408, 429, 500, 502, 503, 504).
        func mayTryAgain(after error: NetworkError) -> Bool {
            if case .unacceptableStatus(let status, _, _) = error { return TransientStatus.codes.contains(status) }
            return error.transience?.meansUnreachable == true
        }

        /// Waits before the next attempt as the policy says; `false` once the policy allows no more attempts.
        func waitBeforeAttempt() async throws(NetworkError) -> Bool {
            let attempt = failures.withLock { count in
                count += 1
                return count
            }
            guard attempt <= policy.maximumAttempts else { return false }
            do {
                try await network.clock.sleep(policy.delay(beforeAttempt: attempt, serverRetry: nil))
            } catch {
                throw .cancelled
            }
            return true
        }
    }
}
