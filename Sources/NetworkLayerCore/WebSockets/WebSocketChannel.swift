public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A WebSocket message: text or binary.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (the protocol checks that it is UTF-8).
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// What a client asks of a WebSocket connection before it opens: the transport applies these to the handshake and
/// the connection.
public struct WebSocketSettings: Sendable, Hashable {
    /// The subprotocols to offer (`Sec-WebSocket-Protocol`), in order of preference; empty for none.
    public var subprotocols: [String]
    /// The largest message accepted, in bytes: a message larger than this (decompressed) fails the connection with
    /// close code 1009 as soon as its size is known, before it is buffered. Defaults to 16 MiB.
    public var maximumMessageSize: Int
    /// Whether to offer permessage-deflate compression (RFC 7692). Defaults to `true`.
    public var compression: Bool
    /// How often to ping a connection to find a dead peer, in seconds; `nil` (the default) for never. A ping that
    /// gets no pong before the next is due ends the connection with ``NetworkError/TransportFailure/timedOut``.
    public var keepAliveInterval: TimeInterval?
    /// The longest wait for the server's close frame after the client's, in seconds. Defaults to 5.
    public var closeTimeout: TimeInterval
    /// The longest a send may wait for the connection to take its message, in seconds; `nil` (the default) for the
    /// network's ``Network/timeout`` (60 s unless you set it), and 60 s for a transport called directly. A connection
    /// that takes nothing for that long is ended with ``NetworkError/TransportFailure/timedOut``: a peer that reads
    /// nothing is as dead as one that answers no ping, and every send waiting on it is answered (with
    /// ``NetworkError/TransportFailure/connectionLost``). `CurlTransport` counts from the last byte the socket took;
    /// `URLSessionTransport`, whose task reports whole messages only, from the call.
    public var sendTimeout: TimeInterval?

    /// How long a send waits when ``sendTimeout`` is `nil` and no network chose: 60 s.
    @_spi(TransportKit) public static let defaultSendTimeout: TimeInterval = 60

    /// Creates settings; each has a default.
    public init(
        subprotocols: [String] = [],
        maximumMessageSize: Int = 16 * 1024 * 1024,
        compression: Bool = true,
        keepAliveInterval: TimeInterval? = nil,
        closeTimeout: TimeInterval = 5,
        sendTimeout: TimeInterval? = nil
    ) {
        self.subprotocols = subprotocols
        self.maximumMessageSize = max(0, maximumMessageSize)
        self.compression = compression
        self.keepAliveInterval = keepAliveInterval
        self.closeTimeout = max(0, closeTimeout)
        self.sendTimeout = sendTimeout.map { max(0, $0) }
    }
}

/// An open WebSocket connection as a transport hands it over: messages in and out, pings, and the close handshake.
///
/// The seam between a ``Transport`` and the WebSocket client (`network.webSocket(_:)`); a transport that opens
/// WebSockets returns one from ``Transport/openWebSocket(_:settings:)``, and a test double can script one.
/// Methods may be called from any task, but one `receive()` at a time.
public protocol WebSocketChannel: AnyObject, Sendable {
    /// The subprotocol the server chose, if any.
    var subprotocol: String? { get }

    /// Sends a message, returning once the connection has taken it (it waits while the socket cannot take more, at
    /// most the settings' ``WebSocketSettings/sendTimeout``).
    ///
    /// A channel answers every send: at once once the connection has ended, even before a `receive()` has seen the
    /// end, and a waiting one as soon as the connection ends.
    ///
    /// - Throws: ``NetworkError`` with ``NetworkError/TransportFailure/connectionLost`` once the connection has
    ///   ended or is closing, however it ended (the message is not sent; the error's text says why, and a receive
    ///   gets the end's own error, such as ``NetworkError/TransportFailure/timedOut`` when the connection took
    ///   nothing for the send timeout).
    func send(_ message: WebSocketMessage) async throws(NetworkError)

    /// The next message, or `nil` once the connection closed cleanly (the close code is then set).
    ///
    /// - Throws: ``NetworkError``: `.cancelled` when the calling task is cancelled (the connection goes on); the
    ///   error the connection failed with otherwise.
    func receive() async throws(NetworkError) -> WebSocketMessage?

    /// Sends a ping and returns when its pong arrives.
    ///
    /// - Parameter timeout: How long to wait for the pong, in seconds; `nil` waits as long as the connection lives.
    /// - Throws: ``NetworkError`` with ``NetworkError/TransportFailure/timedOut`` when no pong came in time;
    ///   ``NetworkError/TransportFailure/connectionLost`` at once once the connection has ended, and as soon as it
    ///   ends while the ping waits.
    func ping(timeout: TimeInterval?) async throws(NetworkError)

    /// Starts the close handshake with `code` and `reason` and returns once it is done, or once the settings' close
    /// timeout has passed; at once if the connection already ended.
    func close(code: UInt16, reason: String) async

    /// The close code the connection ended with (the server's, or the one the client failed it with); `nil` while
    /// it is open or when it ended without one (a drop).
    var closeCode: UInt16? { get }

    /// The reason sent with ``closeCode``; empty when none was given.
    var closeReason: String { get }
}

/// The answer to a WebSocket handshake as a transport hands it over: the connection and the server's `101` head.
public struct WebSocketOpening: Sendable {
    /// The open connection.
    public let channel: any WebSocketChannel
    /// The server's `101 Switching Protocols` response.
    public let response: HTTPURLResponse

    /// Pairs a connection with the response that opened it.
    public init(channel: any WebSocketChannel, response: HTTPURLResponse) {
        self.channel = channel
        self.response = response
    }
}

extension Transport {
    /// Fails with ``NetworkError/TransportFailure/other``: a transport opens WebSockets only if it implements this.
    public func openWebSocket(
        _ request: URLRequest,
        settings: WebSocketSettings
    ) async throws -> WebSocketOpening {
        throw NetworkError.webSocketsUnsupported(by: "\(type(of: self))")
    }
}

extension NetworkError {
    /// A connection that dropped or closed, saying how: ``TransportFailure/connectionLost`` over a `URLError` with
    /// `description`, what every WebSocket channel of the package throws for it.
    @_spi(TransportKit) public static func connectionLost(_ description: String) -> NetworkError {
        .transport(.connectionLost, underlyingError: URLError(.networkConnectionLost, description: description))
    }

    /// The error of a send or a ping on a WebSocket connection that has ended: ``TransportFailure/connectionLost``
    /// whatever the end was, saying why: the error it failed with (`cause`: a drop, a timeout, a broken protocol),
    /// or the close code. A receive gets the end itself, so that the app learns why from its messages loop; a send or
    /// a ping only needs to know that its message did not go.
    @_spi(TransportKit) public static func lost(ending cause: NetworkError?, code: UInt16?) -> NetworkError {
        if let cause, case .transport(.connectionLost, _) = cause { return cause }
        let why = cause.map { "it failed (\($0))" } ?? "it was closed (\(code.map(String.init) ?? "no code"))"
        return .connectionLost("the WebSocket's connection has ended: \(why)")
    }

    /// The error of a transport that cannot open WebSockets, naming it and the transports that can.
    package static func webSocketsUnsupported(by transport: String) -> NetworkError {
        .transport(
            .other,
            underlyingError: URLError(
                .unsupportedURL,
                description:
                    "\(transport) cannot open WebSockets: use CurlTransport on Linux, URLSessionTransport on Apple platforms"
            ))
    }
}

extension URLRequest {
    /// The request with a ws or wss URL changed to http or https: what a WebSocket's handshake is sent as, so that
    /// the request rules, middleware that compare origins (a token kept to its API's host) and transports see the
    /// origin the connection goes to.
    @_spi(TransportKit) public var withWebSocketSchemeAsHTTP: URLRequest {
        replacingScheme(["ws": "http", "wss": "https"])
    }

    /// The request with an http or https URL changed to ws or wss: what `URLSessionWebSocketTask` takes.
    package var withHTTPSchemeAsWebSocket: URLRequest {
        replacingScheme(["http": "ws", "https": "wss"])
    }

    /// The request with its URL's scheme (compared in lower case) replaced as `schemes` says; as it is otherwise.
    private func replacingScheme(_ schemes: [String: String]) -> URLRequest {
        guard let url, let scheme = url.scheme.flatMap({ schemes[$0.lowercased()] }),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return self }
        components.scheme = scheme
        guard let mapped = components.url else { return self }
        var request = self
        request.url = mapped
        return request
    }
}

/// Where the end of the middleware chain leaves the connection a WebSocket handshake opened: the middleware see the
/// `101` head, the caller gets the connection. When a middleware sends again (a token refresh), the connection of the
/// attempt it replaces is closed.
final class WebSocketSlot: Sendable {
    private let channel = Locked<(any WebSocketChannel)?>(nil)
    let settings: WebSocketSettings

    init(settings: WebSocketSettings) {
        self.settings = settings
    }

    /// Keeps the connection of the latest attempt, closing the one before.
    func put(_ new: any WebSocketChannel) {
        let old = channel.withLock { channel in
            defer { channel = new }
            return channel
        }
        if let old { Task { await old.close(code: 1001, reason: "") } }
    }

    /// The connection of the latest attempt, if the transport opened one.
    func take() -> (any WebSocketChannel)? {
        channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
    }

    deinit {
        // A send that failed after its transport answered (a deadline, a middleware's error) closes that connection.
        if let left = channel.withLock({ $0 }) { Task { await left.close(code: 1001, reason: "") } }
    }
}
