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

/// A ``Middleware`` whose `next` hands back the response as the transport received it, a ``ResponseHead``: the shape
/// for a middleware that adapts requests and reads no more of a response than its status and a few header fields,
/// which then costs what its own code costs.
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
/// A ``Network`` whose middleware are all of this shape, over a transport that keeps its own deadline (the package's
/// three do), runs them in the caller's task, with no task of its own and no `HTTPURLResponse` built unless one of them
/// (or the caller, through ``Response``) asks for it; the built-in middleware (`DefaultHeadersMiddleware`,
/// `AuthenticationMiddleware`, `RetryMiddleware`, `LoggingMiddleware`, `StatusHookMiddleware`) are. Such a middleware
/// must end when its task is cancelled, as every `Task.sleep` and URLSession call does: the overall deadline
/// (``Network/timeout``) stops the transport, and the send fails with it when the middleware returns. A ``Middleware``
/// of the plain shape runs the chain in a task raced against the deadline, so that even one that ignores cancellation
/// cannot hold its caller.
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
