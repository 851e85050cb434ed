public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Wraps every request a ``Network`` sends: sees the request going out and the response coming back.
///
/// A middleware may change the request, look at or replace the response, call `next` more than once (to retry) or
/// not at all (to answer by itself). ``Network`` runs its middleware in list order: the first in the list sees the
/// request first and the response last.
///
/// ```swift
/// struct RequestIDMiddleware: Middleware {
///     func intercept(
///         _ request: URLRequest,
///         context: RequestContext,
///         next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
///     ) async throws -> (Data, HTTPURLResponse) {
///         var request = request
///         request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
///         return try await next(request, context)
///     }
/// }
///
/// let network = Network(transport: URLSessionTransport(), middleware: [RequestIDMiddleware()])
/// ```
///
/// Every status arrives as a response: ``Network`` checks the status and decodes only after the whole chain.
/// `next` throws a ``NetworkError`` (a transport failure, a timeout, `.cancelled`); an error of your own type reaches
/// the caller as ``NetworkError/middleware(_:underlyingError:)`` naming your middleware, while a `NetworkError` you
/// throw reaches it unchanged. A route passes settings to middleware through ``RequestContext/options``.
public protocol Middleware: Sendable {
    /// Handles one request: usually adapts it, calls `next`, and returns (or inspects) what `next` returned.
    ///
    /// - Parameters:
    ///   - request: The request as the middleware before this one left it.
    ///   - context: The route's options, the attempt number and the time left before the overall deadline.
    ///   - next: Sends the request on through the rest of the chain and the transport.
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse)
}

/// A middleware that sends requests later, outside any caller's send (``OfflineQueue``'s replays): a ``Network`` made
/// with it tells it so, and it sends through that network, less itself.
protocol NetworkAttachedMiddleware: Middleware, AnyObject {
    /// This middleware is part of `network`.
    func attach(to network: Network)
}
