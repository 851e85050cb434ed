import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Runs an action when a response comes back with one of some statuses, and never changes the result.
///
/// ```swift
/// let network = Network(
///     transport: URLSessionTransport(),
///     middleware: [StatusHookMiddleware(statuses: [401], action: { _ in await session.logOut() })]
/// )
/// ```
///
/// The action runs before the caller gets the response (or the error ``Network`` makes of its status), once per
/// response that comes back through this point of the chain: put the hook first in the list to see only what the
/// caller gets, after ``RetryMiddleware`` or ``AuthenticationMiddleware`` to see every attempt.
public struct StatusHookMiddleware: ResponseHeadMiddleware {
    /// The statuses that run the action.
    public let statuses: Set<Int>
    private let action: @Sendable (HTTPURLResponse) async -> Void

    /// Creates a hook that runs `action` with each response whose status is in `statuses`.
    public init(statuses: Set<Int>, action: @escaping @Sendable (HTTPURLResponse) async -> Void) {
        self.statuses = statuses
        self.action = action
    }

    /// Sends the request on, and runs the action if the response's status is one of ``statuses``.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        let (data, response) = try await next(request, context)
        if statuses.contains(response.statusCode) { await action(try response.httpURLResponse()) }
        return (data, response)
    }
}
