import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// A transport that ends a request by itself once `request.timeoutInterval` has passed since `send` began (counting
/// queueing, redirects and slow bodies), and that takes requests ``RequestRules`` checked without checking them again:
/// ``URLSessionTransport``, `CurlTransport` and `MockTransport` are, and so may any transport that keeps both promises
/// (part of the transport kit: `@_spi(TransportKit) import NetworkLayerCore`).
///
/// ``Network`` runs any other transport in a task of its own, raced against its deadline (`Network.race`); these need
/// no extra task: the send and every shape of middleware run in the caller's task. Their public `send(_:)`, for
/// callers that bypass ``Network``, checks first and then does the same.
@_spi(TransportKit) public protocol DeadlineKeepingTransport: Transport {
    /// Sends a request that ``RequestRules/check(_:)`` returned.
    func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Sends a request that ``RequestRules/check(_:)`` returned, with the response as it arrived: ``CurlTransport``
    /// leaves its `HTTPURLResponse` to be built only if asked for (see ``ResponseHead``).
    func receive(checked request: URLRequest) async throws -> (Data, ResponseHead)

    /// Streams a request that ``RequestRules/check(_:)`` returned: returns at the head; the deadline covers only
    /// the time until then.
    func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse)

    /// Sends a request that ``RequestRules/check(_:)`` returned with `body` as its body.
    func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse)
}

extension DeadlineKeepingTransport {
    /// Sends with ``send(checked:)``, for a transport that builds its responses as it receives them.
    public func receive(checked request: URLRequest) async throws -> (Data, ResponseHead) {
        let (data, response) = try await send(checked: request)
        return (data, ResponseHead(response))
    }

    /// Sends the request whole and hands over the complete body, for a transport that cannot stream.
    public func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        let (data, response) = try await send(checked: request)
        return (ResponseBody(data), response)
    }

    /// Reads the whole body into memory and sends it, for a transport that cannot stream a request body.
    public func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await send(checked: body.inMemory(request))
    }
}
