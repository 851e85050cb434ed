public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Sends a `URLRequest` and returns the body and the HTTP response: the one seam between ``Network`` and the wire.
///
/// ``URLSessionTransport`` is the default. Inject your own to test code that uses ``Network`` without a server:
///
/// ```swift
/// struct CannedTransport: Transport {
///     var status = 200
///     var body = Data(#"{"id":1,"name":"Alice"}"#.utf8)
///
///     func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
///         let response = HTTPURLResponse(
///             url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
///         return (body, response)
///     }
/// }
///
/// let network = Network(transport: CannedTransport())
/// ```
///
/// A transport returns every status code as a response; ``Network`` decides which are errors. Throw a `URLError`
/// for network failures and `CancellationError` (or `URLError(.cancelled)`) when the task is cancelled; ``Network``
/// maps them to ``NetworkError``.
///
/// A transport that can hand over a body as it arrives implements ``stream(_:)`` as well, and one that sends a
/// request body from disk or from a stream implements ``upload(_:from:)``; one that does neither (such as the test
/// transport above) still serves ``Network/stream(_:)``, `Network.events(_:reconnect:)` and
/// ``Network/upload(_:from:progress:)``, with whole bodies in memory.
public protocol Transport: Sendable {
    /// Sends the request and returns the complete body with its HTTP response.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Sends the request and returns as soon as the head has arrived, with the body still arriving.
    ///
    /// The default sends with ``send(_:)`` and hands over the complete body.
    func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse)

    /// Sends the request with `body` as its body and returns the complete response body with its HTTP response.
    ///
    /// The default reads the whole body into `request.httpBody` and sends it with ``send(_:)``: a test transport
    /// sees uploads as ordinary requests.
    func upload(_ request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse)

    /// Opens a WebSocket: sends `request` (a `GET` of a ws, wss, http or https URL) as the handshake and returns the
    /// open connection with the server's `101` response.
    ///
    /// An answer other than `101` throws ``NetworkError/unacceptableStatus(_:headers:body:)`` with its status, fields
    /// and body, so that middleware see it as a response (a `401` refreshes a token and sends again). The default
    /// fails with ``NetworkError/TransportFailure/other``, naming the transports that open WebSockets.
    func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening
}

extension Transport {
    /// Sends with ``send(_:)`` and hands over the complete body, for a transport that cannot stream.
    public func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        let (data, response) = try await send(request)
        return (ResponseBody(data), response)
    }

    /// Reads the whole body into `request.httpBody` and sends it with ``send(_:)``, for a transport that cannot
    /// stream a request body.
    public func upload(_ request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await send(body.inMemory(request))
    }
}
