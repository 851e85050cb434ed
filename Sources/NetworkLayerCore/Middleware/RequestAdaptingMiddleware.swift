public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A middleware that adds header fields to requests and may ask for a request to be sent once more after its
/// response: an API key, a token, a signature, a request ID.
///
/// ```swift
/// struct RequestIDMiddleware: RequestAdaptingMiddleware {
///     func adapt(_ request: inout AdaptedRequest, context: RequestContext) {
///         request.setValue(context.requestID.uuidString, forHTTPHeaderField: "X-Request-ID")
///     }
/// }
/// ```
///
/// A ``Network`` runs request-adapting middleware that sit next to each other in its list as one step: each one's
/// ``adapt(_:context:)`` in list order, then the request changed once with every field they set, then, after the
/// response, each one's ``shouldSendAgain(after:adaptation:context:)`` in the opposite order. What a middleware of
/// this shape costs is what its own code costs: no closure and no copy of the request of its own. Called as a
/// ``ResponseHeadMiddleware`` (or a ``Middleware``), it does the same alone. A ``Network`` calls `adapt` and
/// `shouldSendAgain` only: an `intercept` of your own in such a type is never called by the chain.
///
/// The order is the chain's: a middleware sees the fields the ones before it set (``AdaptedRequest/hasHeaderField(_:)``),
/// a field it sets replaces one of the same name set before it, and a middleware later in the list sees the request
/// with all of them. What one throws reaches the caller as ``NetworkError/middleware(_:underlyingError:)`` naming
/// it, as for any middleware.
public protocol RequestAdaptingMiddleware: ResponseHeadMiddleware {
    /// What ``adapt(_:context:)`` hands to ``shouldSendAgain(after:adaptation:context:)`` about one send of a
    /// request, such as the version of the token it added; `Void` for a middleware that never sends again.
    associatedtype Adaptation: Sendable = Void

    /// Sets this middleware's header fields on `request`, and returns what it needs to know after the response.
    ///
    /// - Parameters:
    ///   - request: The request with the fields the middleware before this one set.
    ///   - context: The route's options, the attempt number and the time left before the overall deadline.
    func adapt(_ request: inout AdaptedRequest, context: RequestContext) async throws -> Adaptation

    /// Whether to adapt the request again and send it once more, after `response` to a request this middleware
    /// adapted; `false` (the default) returns the response on up the chain.
    ///
    /// A middleware sends a request again at most once, as an `intercept` that calls `next` a second time and
    /// returns what it gets: it is not asked about the answer to the request it sent again, which is final. Never
    /// asked when the request's body cannot be sent again (``RequestContext/canResend``). A middleware that needs
    /// more tries than that is a ``ResponseHeadMiddleware``, as `RetryMiddleware` is.
    ///
    /// - Parameters:
    ///   - response: The response to the request as ``adapt(_:context:)`` left it (and the middleware after it).
    ///   - adaptation: What ``adapt(_:context:)`` returned for that request.
    ///   - context: The context ``adapt(_:context:)`` was given.
    func shouldSendAgain(
        after response: ResponseHead,
        adaptation: Adaptation,
        context: RequestContext
    ) async throws -> Bool
}

extension RequestAdaptingMiddleware {
    /// Never sends a request again.
    public func shouldSendAgain(
        after response: ResponseHead,
        adaptation: Adaptation,
        context: RequestContext
    ) async throws -> Bool {
        false
    }

    /// Adapts the request, sends it on through `next`, and sends it once more when
    /// ``shouldSendAgain(after:adaptation:context:)`` says so: the middleware run alone, as a ``Network`` runs it.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        try await AdaptingRun(members: [self], namesFailures: false).send(request, context: context, next: next)
    }
}

/// A request on its way through ``RequestAdaptingMiddleware``: the request as it came, and the header fields the
/// adapting middleware set, applied to it in one change when it goes on.
///
/// ```swift
/// var request = AdaptedRequest(URLRequest(url: URL(string: "https://api.example.com/users")!))
/// request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
/// print(request.urlRequest.value(forHTTPHeaderField: "Authorization") ?? "none")  // Bearer abc
/// ```
public struct AdaptedRequest: Sendable {
    /// The request as it came to the first of the adapting middleware, without the fields they set.
    public let original: URLRequest
    /// The fields set, in the order they were set; a later one replaces an earlier one of the same name.
    private(set) var fields: [(key: String, value: String)] = []

    /// A request to adapt: `request` with no field set yet. A ``Network`` makes these; a test of a middleware can too.
    public init(_ request: URLRequest) {
        original = request
    }

    /// The request's URL.
    public var url: URL? { original.url }

    /// The request's method, such as `GET`.
    public var httpMethod: String? { original.httpMethod }

    /// The value of a header field, its name in any case: the one set last here, or else the original request's.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let set = fields.last(where: { HeaderFields.sameName($0.key, name) }) { return set.value }
        return original.value(forHTTPHeaderField: name)
    }

    /// Whether the request has a header field of that name, in any case, set here or in the original request.
    public func hasHeaderField(_ name: String) -> Bool {
        fields.contains { HeaderFields.sameName($0.key, name) } || original.hasHeaderField(name)
    }

    /// Sets a header field, replacing any of the same name in any case (the original request's too), under the name
    /// as given. Values are checked as a route's are, once, before the request reaches the transport.
    public mutating func setValue(_ value: String, forHTTPHeaderField name: String) {
        fields.append((key: name, value: value))
    }

    /// The request with every field set: the original itself when none was.
    public var urlRequest: URLRequest {
        fields.isEmpty ? original : original.settingHeaderFields(list: fields)
    }

    /// Forgets the fields set after the first `count`, for a middleware that adapts the request again.
    mutating func keepFirst(_ count: Int) {
        fields.removeSubrange(count...)
    }
}

/// Request-adapting middleware that sit next to each other in a chain, run as one step: every ``adapt``, one change
/// of the request, the rest of the chain, then every ``shouldSendAgain`` from the last to the first. A member that
/// asks to send again adapts again, with the attempt counted, and so do the members after it, from the request as
/// the members before it left it: what a chain of `intercept`s, each calling `next` again, would send.
struct AdaptingRun: Sendable {
    let members: [any RequestAdaptingMiddleware]
    /// Whether a member's failure other than a `NetworkError` or a cancellation becomes
    /// ``NetworkError/middleware(_:underlyingError:)`` naming it: in a ``Network``'s chain, yes; a middleware called
    /// alone throws what it threw.
    let namesFailures: Bool

    /// One member's part in the current send.
    private struct Step {
        /// How many fields the members before it had set.
        var mark: Int
        var adaptation: any Sendable
        /// Whether it sent the request again since it was last adapted; it is not asked again until then.
        var sentAgain = false
    }

    /// Sends `request` through every member and then `next`.
    func send(
        _ request: URLRequest,
        context: RequestContext,
        next: (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        var adapted = AdaptedRequest(request)
        var steps: [Step] = []
        steps.reserveCapacity(members.count)
        for index in members.indices {
            let mark = adapted.fields.count
            steps.append(Step(mark: mark, adaptation: try await adapt(index, &adapted, context)))
        }
        // The context each member was adapted with, once a member has sent again (before that, all are `context`).
        var contexts: [RequestContext]?
        var onward = context
        // Each sending again sets one member's flag and clears only those of the members after it: the flags,
        // read as a binary number with the first member highest, grow each time, so there are fewer than 2^n.
        while true {
            let response = try await next(adapted.urlRequest, onward)
            guard context.canResend,
                let again = try await firstAskingAgain(after: response.1, steps: steps, contexts: contexts, context)
            else { return response }
            var resent = contexts?[again] ?? context
            resent.attempt += 1
            adapted.keepFirst(steps[again].mark)
            steps[again].sentAgain = true
            steps[again].adaptation = try await adapt(again, &adapted, resent)
            var all = contexts ?? Array(repeating: context, count: members.count)
            for later in steps.indices.dropFirst(again + 1) {
                all[later] = resent
                let mark = adapted.fields.count
                steps[later] = Step(mark: mark, adaptation: try await adapt(later, &adapted, resent))
            }
            contexts = all
            onward = resent
        }
    }

    /// The last member, going backwards, that wants the request sent again after `response`.
    private func firstAskingAgain(
        after response: ResponseHead,
        steps: [Step],
        contexts: [RequestContext]?,
        _ context: RequestContext
    ) async throws -> Int? {
        for index in members.indices.reversed() where !steps[index].sentAgain {
            // Each context passed as it is stored: a `RequestContext` is large enough that a copy shows.
            let again =
                if let contexts { try await ask(index, response, steps[index].adaptation, contexts[index]) } else {
                    try await ask(index, response, steps[index].adaptation, context)
                }
            if again { return index }
        }
        return nil
    }

    private func adapt(
        _ index: Int,
        _ request: inout AdaptedRequest,
        _ context: RequestContext
    ) async throws -> any Sendable {
        do {
            return try await Self.adapt(members[index], &request, context)
        } catch {
            throw failure(error, of: index)
        }
    }

    private func ask(
        _ index: Int,
        _ response: ResponseHead,
        _ adaptation: any Sendable,
        _ context: RequestContext
    ) async throws -> Bool {
        do {
            return try await Self.ask(members[index], response, adaptation, context)
        } catch {
            throw failure(error, of: index)
        }
    }

    private static func adapt<Member: RequestAdaptingMiddleware>(
        _ member: Member,
        _ request: inout AdaptedRequest,
        _ context: RequestContext
    ) async throws -> any Sendable {
        try await member.adapt(&request, context: context)
    }

    private static func ask<Member: RequestAdaptingMiddleware>(
        _ member: Member,
        _ response: ResponseHead,
        _ adaptation: any Sendable,
        _ context: RequestContext
    ) async throws -> Bool {
        // What the same member's `adapt` returned: the cast cannot fail.
        guard let adaptation = adaptation as? Member.Adaptation else { return false }
        return try await member.shouldSendAgain(after: response, adaptation: adaptation, context: context)
    }

    private func failure(_ error: any Error, of index: Int) -> any Error {
        guard namesFailures else { return error }
        return NetworkError(middlewareError: error, named: String(describing: type(of: members[index])))
    }
}
