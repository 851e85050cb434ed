import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// The events of a Server-Sent Events stream, as they arrive, across reconnections: what
/// ``Network/events(_:reconnect:)`` returns.
///
/// Iterating connects (with `Accept: text/event-stream`); the first connection fails as `send` does.
/// After a connection that had opened ends, a request that may be sent twice connects again as the
/// ``ReconnectPolicy`` says, with `Last-Event-ID`. Leaving the loop or cancelling the task closes the connection.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    /// The most bytes one event may hold: 1 MiB. A longer one fails the stream with
    /// ``NetworkError/TransportFailure/responseTooLarge``.
    public static let maximumEventSize = 1024 * 1024

    let network: Network
    let request: Result<URLRequest, NetworkError>
    let options: RequestOptions
    let reconnect: ReconnectPolicy

    /// Whether the stream may connect again: the policy allows it and the request may be sent twice.
    var reconnects: Bool {
        guard case .success(let request) = request else { return false }
        return reconnect.allowsReconnecting(request, options: options)
    }

    /// Starts the stream; nothing is sent before the first call to `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Reads events in order, connecting and reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: ServerSentEvents
        var parser = ServerSentEventParser(maximumEventSize: ServerSentEvents.maximumEventSize)
        var body: ResponseBody.AsyncIterator?
        var pending: [ServerSentEvent] = []
        var nextPending = 0
        /// Reconnections in a row that brought no event.
        var failures = 0
        /// Whether a connection has opened: until then a failure ends the stream, as it ends a `send`.
        var hasConnected = false
        var isFinished = false

        init(source: ServerSentEvents) {
            self.source = source
        }

        /// The next event, or `nil` once the stream has ended.
        ///
        /// - Throws: ``NetworkError``: the route is invalid, the server answered with an error status or with a
        ///   `204` (it has no events for this client), the reply is not `text/event-stream`, an event is too long,
        ///   the connection dropped more often than the policy allows, or the task was cancelled.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if nextPending < pending.count {
                    defer { nextPending += 1 }
                    return pending[nextPending]
                }
                guard !isFinished else { return nil }
                if body == nil {
                    do {
                        body = try await connect()
                        hasConnected = true
                    } catch let error where hasConnected && Self.isDrop(error) {
                        try await reconnectOrEnd(after: error)
                        continue
                    } catch {
                        isFinished = true
                        throw error
                    }
                }
                do {
                    if let chunk = try await body?.next() {
                        pending = try parser.push(chunk)
                        nextPending = 0
                        if !pending.isEmpty { failures = 0 }
                    } else {
                        try await reconnectOrEnd(after: nil)
                    }
                } catch let error where Self.isDrop(error) {
                    try await reconnectOrEnd(after: error)
                }
            }
        }

        /// Opens a connection and checks that it carries an event stream.
        private mutating func connect() async throws -> ResponseBody.AsyncIterator {
            var request = try source.request.get()
            if request.value(forHTTPHeaderField: "Accept") == nil {
                request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            }
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            if !parser.lastEventID.isEmpty {
                request.setValue(parser.lastEventID, forHTTPHeaderField: "Last-Event-ID")
            }
            let response = try await source.network.stream(prepared: request, options: source.options)
            if response.statusCode == 204 {
                throw NetworkError.unacceptableStatus(204, headers: response.headers, body: Data())
            }
            let type = response.headers["Content-Type"] ?? ""
            guard type.lowercased().hasPrefix("text/event-stream") else {
                throw NetworkError.transport(
                    .badResponse,
                    underlyingError: URLError(
                        .cannotParseResponse,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "expected an event stream (text/event-stream), got \(type.isEmpty ? "no Content-Type" : type)"
                        ]))
            }
            return response.body.makeAsyncIterator()
        }

        /// After a drop (`error`) or a clean end (`nil`): waits and reconnects, or ends the stream (with the error,
        /// if there was one) once the policy allows no more attempts or the request may not be sent again.
        private mutating func reconnectOrEnd(after error: (any Error)?) async throws {
            body = nil
            _ = parser.finish()
            failures += 1
            guard source.reconnects, failures <= source.reconnect.maximumAttempts else {
                isFinished = true
                if let error { throw error }
                return
            }
            let delay = source.reconnect.delay(beforeAttempt: failures, serverRetry: parser.reconnectionTime)
            do {
                try await source.network.clock.sleep(delay)
            } catch {
                isFinished = true
                throw NetworkError.cancelled
            }
        }

        /// Whether an error is a dropped or unreachable connection, after which the stream may reconnect.
        private static func isDrop(_ error: any Error) -> Bool {
            (error as? NetworkError)?.transience?.meansUnreachable == true
        }
    }
}

extension Network {
    /// The Server-Sent Events a route streams, as they arrive, reconnecting after a drop.
    ///
    /// ```swift
    /// for try await event in network.events(ChatRoute.live(id: 3)) {
    ///     if event.type == "done" { break }
    ///     let delta = try event.decode(Delta.self)
    /// }
    /// ```
    ///
    /// The request carries `Accept: text/event-stream`. Events follow the specification: `data` lines joined,
    /// comments skipped, `id` kept for `Last-Event-ID`, `retry` honoured. Middleware applies to every connection's
    /// head.
    ///
    /// - The first connection fails as `send` does: within ``timeout``, and at once when it is refused.
    /// - After a connection that had opened ends (dropped, idle past ``idleTimeout``, or closed cleanly by the
    ///   server), a `GET` (or another idempotent method) connects again as `reconnect` says. A `POST` does not:
    ///   reconnecting would send it again, and a chat-completion API would generate (and bill) a second answer.
    ///   Its stream ends with its connection, unless the route sets ``RequestOptions/retry`` to
    ///   ``RetryOption/always`` or `reconnect` is made with ``ReconnectPolicy/resendingNonIdempotentRequests()``.
    ///
    /// - Parameters:
    ///   - route: The event stream's route.
    ///   - reconnect: Whether and how to connect again. Defaults to ``ReconnectPolicy/automatic``.
    public func events(_ route: some URLRequestProtocol, reconnect: ReconnectPolicy = .automatic) -> ServerSentEvents {
        ServerSentEvents(
            network: self, request: Result { () throws(NetworkError) in try request(for: route) },
            options: route.options,
            reconnect: reconnect)
    }
}
