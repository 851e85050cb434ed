import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// A transport of this package: it ends a request by itself once `request.timeoutInterval` has passed since `send`
/// began (counting queueing, redirects and slow bodies), and it takes requests that ``RequestRules`` checked without
/// checking them again.
///
/// ``Network`` runs any other transport in a task of its own, raced against its deadline (`Network.race`); these need
/// no extra task. Their public `send(_:)`, for callers that bypass ``Network``, checks first and then does the same.
package protocol BuiltInTransport: Transport {
    /// Sends a request that ``RequestRules/check(_:)`` returned.
    func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Sends a request that ``RequestRules/check(_:)`` returned, with the response as it arrived: ``CurlTransport``
    /// leaves its `HTTPURLResponse` to be built only if asked for (see ``ReceivedResponse``).
    func receive(checked request: URLRequest) async throws -> (Data, ReceivedResponse)

    /// Streams a request that ``RequestRules/check(_:)`` returned: returns at the head; the deadline covers only
    /// the time until then.
    func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse)

    /// Sends a request that ``RequestRules/check(_:)`` returned with `body` as its body.
    func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse)
}

extension BuiltInTransport {
    /// Sends with ``send(checked:)``, for a transport of this package that builds its responses as it receives them.
    package func receive(checked request: URLRequest) async throws -> (Data, ReceivedResponse) {
        let (data, response) = try await send(checked: request)
        return (data, ReceivedResponse(response))
    }

    /// Sends the request whole and hands over the complete body, for a transport of this package that cannot
    /// stream yet.
    package func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        let (data, response) = try await send(checked: request)
        return (ResponseBody(data), response)
    }

    /// Reads the whole body into memory and sends it, for a transport of this package that cannot stream a request
    /// body yet.
    package func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await send(checked: body.inMemory(request))
    }
}

extension Transport {
    /// Sends a request that ``RequestRules/check(_:)`` returned, without a second check on the transports of this
    /// package, with the response as it arrived.
    func receive(alreadyChecked request: URLRequest) async throws -> (Data, ReceivedResponse) {
        if let builtIn = self as? any BuiltInTransport { return try await builtIn.receive(checked: request) }
        let (data, response) = try await send(request)
        return (data, ReceivedResponse(response))
    }

    /// Sends a request that ``RequestRules/check(_:)`` returned, without a second check on the transports of this
    /// package.
    func send(alreadyChecked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if let builtIn = self as? any BuiltInTransport { return try await builtIn.send(checked: request) }
        return try await send(request)
    }

    /// Streams a request that ``RequestRules/check(_:)`` returned, without a second check on the transports of
    /// this package.
    func stream(alreadyChecked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        if let builtIn = self as? any BuiltInTransport { return try await builtIn.stream(checked: request) }
        return try await stream(request)
    }

    /// Uploads a request that ``RequestRules/check(_:)`` returned, without a second check on the transports of
    /// this package.
    func upload(alreadyChecked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        if let builtIn = self as? any BuiltInTransport { return try await builtIn.upload(checked: request, from: body) }
        return try await upload(request, from: body)
    }
}
