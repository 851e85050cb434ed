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
///
/// Over the package's transports a ``Network`` runs its middleware in the caller's task, whatever their shape, so a
/// middleware must end when that task is cancelled, as `Task.sleep` and every URLSession call do; the overall
/// deadline (``Network/timeout``) stops the transport, and a `next` called after it fails at once, sending nothing.
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

/// A ``Middleware`` whose `next` hands back the response as the transport received it, a ``ResponseHead``, instead
/// of an `HTTPURLResponse`: the shape for a middleware that reads no more of a response than its status and a few
/// header fields, which then never pays for building one.
///
/// ```swift
/// struct RequestIDMiddleware: ResponseHeadMiddleware {
///     func intercept(
///         _ request: URLRequest,
///         context: RequestContext,
///         next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
///     ) async throws -> (Data, ResponseHead) {
///         var request = request
///         request.setValue(context.requestID.uuidString, forHTTPHeaderField: "X-Request-ID")
///         return try await next(request, context)
///     }
/// }
/// ```
///
/// It is the one difference between the two shapes: a ``Network`` runs both the same way, in the same task. When
/// every middleware of a chain takes this shape (the built-in ones do), no `HTTPURLResponse` is built unless one of
/// them (or the caller, through ``Response``) asks for it with ``ResponseHead/httpURLResponse()``; on Linux, building
/// one costs about a tenth of what a small request costs `CurlTransport`.
///
/// Every middleware of this shape is a ``Middleware`` too: called through the plain shape, it gets a head made from
/// the `HTTPURLResponse` and returns the one it was given.
public protocol ResponseHeadMiddleware: Middleware {
    /// Handles one request: usually adapts it, calls `next`, and returns (or inspects) what `next` returned.
    ///
    /// - Parameters:
    ///   - request: The request as the middleware before this one left it.
    ///   - context: The route's options, the attempt number and the time left before the overall deadline.
    ///   - next: Sends the request on through the rest of the chain and the transport.
    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead)
}

extension ResponseHeadMiddleware {
    /// Runs the middleware with a `next` of the plain shape: the response it returns goes in as a ``ResponseHead``
    /// and comes back out as an `HTTPURLResponse`.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let (data, head): (Data, ResponseHead) = try await intercept(request, context: context) {
            (request: URLRequest, context: RequestContext) async throws -> (Data, ResponseHead) in
            let (data, response) = try await next(request, context)
            return (data, ResponseHead(response))
        }
        return (data, try head.httpURLResponse())
    }
}

/// A middleware that sends requests later, outside any caller's send (an offline queue's replays): a ``Network`` made
/// with it tells it so (and ``Network/attachMiddleware()`` does, explicitly, for a network changed after), and it
/// sends through that network less itself (``Network/withoutMiddleware(_:)`` and ``Network/send(prepared:options:)``).
/// Copying a network and changing the copy never re-points it.
public protocol NetworkAttachedMiddleware: Middleware, AnyObject {
    /// Tells the middleware that it is part of `network`'s middleware: by the network's initializer, and by
    /// ``Network/attachMiddleware()``.
    func attach(to network: Network)
}
