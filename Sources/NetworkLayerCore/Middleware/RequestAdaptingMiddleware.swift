public import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A middleware that adds header fields to requests: an API key, a token, a signature, a request ID.
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
/// ``adapt(_:context:)`` in list order, then the request changed once with every field they set. What a middleware
/// of this shape costs is what its own code costs: no closure, no step of the chain and no copy of the request of its
/// own. A middleware that needs to see the response, to send the request once more after it (as a token refresh on
/// 401 does), says so from `adapt` with ``AdaptedRequest/sendAgain(when:)``.
///
/// The order is the chain's: a middleware sees the fields the ones before it set (``AdaptedRequest/hasHeaderField(_:)``),
/// a field it sets replaces one of the same name set before it, and a middleware later in the list sees the request
/// with all of them. What one throws reaches the caller as ``NetworkError/middleware(_:underlyingError:)`` naming
/// it, as for any middleware. Called as a ``ResponseHeadMiddleware`` (or a ``Middleware``), it does the same alone;
/// a ``Network`` calls `adapt` only, never an `intercept` of your own in such a type.
public protocol RequestAdaptingMiddleware: ResponseHeadMiddleware {
    /// Sets this middleware's header fields on `request`.
    ///
    /// - Parameters:
    ///   - request: The request with the fields the middleware before this one set.
    ///   - context: The route's options, the attempt number and the time left before the overall deadline.
    func adapt(_ request: inout AdaptedRequest, context: RequestContext) async throws
}

extension RequestAdaptingMiddleware {
    /// Adapts the request and sends it on through `next`, once more when ``AdaptedRequest/sendAgain(when:)`` asked
    /// for it: the middleware run alone, as a ``Network`` runs it.
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
    /// A middleware's wish to see the response: whether to send the request again.
    struct Decision: Sendable {
        /// The member of the run that asked.
        let member: Int
        /// How many fields the members before it had set.
        let mark: Int
        /// The attempt it was adapted for.
        let attempt: Int
        let decide: @Sendable (ResponseHead) async throws -> Bool
    }

    /// The request as it came to the first of the adapting middleware, without the fields they set.
    public let original: URLRequest
    /// The fields set, in the order they were set; a later one replaces an earlier one of the same name.
    private(set) var fields: [(key: String, value: String)] = []
    /// The wishes to see the response, in the order they were made.
    private(set) var decisions: [Decision] = []
    /// What wants to hear whether the request may have reached its server, once it has been sent.
    private var sendingWatchers: [@Sendable (Bool) -> Void] = []
    /// The member of a run adapting the request now, where its fields begin and for which attempt; `nil` while a
    /// member adapts it again after asking to: the answer to that is final, so it is not asked again. A request made
    /// by hand is adapted by one member, for the first attempt.
    private var adapting: (member: Int, mark: Int, attempt: Int)? = (member: 0, mark: 0, attempt: 1)

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

    /// Asks to see the response to this request: when `decide` returns `true`, the request is adapted again (with
    /// ``RequestContext/attempt`` one higher) and sent once more, as an `intercept` that calls `next` a second time
    /// and returns what it gets.
    ///
    /// ```swift
    /// request.sendAgain(when: { response in
    ///     guard response.statusCode == 401 else { return false }
    ///     try await tokens.refresh()
    ///     return true
    /// })
    /// ```
    ///
    /// The answer to the request sent again is final: while adapting it, the middleware's calls to this are ignored.
    /// The middleware later in the list decide first, as their `intercept`s would have seen the response first.
    /// Never asked when the request's body cannot be sent again (``RequestContext/canResend``). A middleware that
    /// needs more tries than one is a ``ResponseHeadMiddleware``, as `RetryMiddleware` is. What `decide` throws fails
    /// the send, as what `adapt` throws does.
    public mutating func sendAgain(when decide: @escaping @Sendable (ResponseHead) async throws -> Bool) {
        guard let adapting else { return }
        decisions.append(
            Decision(member: adapting.member, mark: adapting.mark, attempt: adapting.attempt, decide: decide))
    }

    /// Asks to hear, once the request has been sent, whether it may have reached its server: `handler` gets `true`
    /// when any attempt of the send (a retry's included) got a response or failed after a byte of it may have left,
    /// and `false` when none did: the send failed before reaching a transport (a rule or a middleware refused it), or
    /// every attempt failed before a byte left (a transport that cannot send it, an unknown host, a refused
    /// connection, a failed TLS handshake). Called once, for the first send of the request as adapted now, and with
    /// `false` when the adaptation itself fails.
    ///
    /// ``CredentialScope/covers(_:context:field:middleware:)`` asks this, so that only a request that may have
    /// arrived fixes a first origin.
    public mutating func afterSending(_ handler: @escaping @Sendable (_ mayHaveArrived: Bool) -> Void) {
        sendingWatchers.append(handler)
    }

    /// Tells what asked ``afterSending(_:)`` how the send went, once.
    mutating func sent(mayHaveArrived: Bool) {
        guard !sendingWatchers.isEmpty else { return }
        let watchers = sendingWatchers
        sendingWatchers = []
        for watcher in watchers { watcher(mayHaveArrived) }
    }

    /// Starts a member's adaptation: `takesDecisions` is `false` when it adapts again after asking to.
    mutating func begin(member: Int, attempt: Int, takesDecisions: Bool) {
        adapting = takesDecisions ? (member, fields.count, attempt) : nil
    }

    /// Forgets the fields from `mark` on and the decisions of the members from `member` on, for a member that
    /// adapts the request again.
    mutating func rewind(to mark: Int, from member: Int) {
        fields.removeSubrange(mark...)
        decisions.removeAll { $0.member >= member }
    }
}

/// Request-adapting middleware that sit next to each other in a chain, run as one step: every ``adapt``, one change
/// of the request, the rest of the chain, then each ``AdaptedRequest/sendAgain(when:)`` wish from the last made to
/// the first. A member that wants the request sent again adapts it again, with the attempt counted, and so do the
/// members after it, from the request as the members before it left it: what a chain of `intercept`s, each calling
/// `next` again, would send.
struct AdaptingRun: Sendable {
    let members: [any RequestAdaptingMiddleware]
    /// Whether a member's failure other than a `NetworkError` or a cancellation becomes
    /// ``NetworkError/middleware(_:underlyingError:)`` naming it: in a ``Network``'s chain, yes; a middleware called
    /// alone throws what it threw.
    let namesFailures: Bool

    /// Sends `request` through every member and then `next`.
    func send(
        _ request: URLRequest,
        context: RequestContext,
        next: (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        var adapted = AdaptedRequest(request)
        try await adapt(&adapted, from: 0, context, again: false)
        var onward: RequestContext?
        // A member that asks again is not asked after its next adaptation, and only those after it are adapted anew:
        // the members asking, read as a binary number with the first member highest, fall each time, so a send goes
        // again fewer than 2^n times.
        while true {
            let response: (Data, ResponseHead)
            // Which attempt, if any, reached a server is known below this run only (a retry may follow an attempt
            // that did): the chain's transport step records it for the whole send.
            do {
                response = try await next(adapted.urlRequest, onward ?? context)
            } catch {
                adapted.sent(mayHaveArrived: context.record.mayHaveArrived)
                throw error
            }
            adapted.sent(mayHaveArrived: context.record.mayHaveArrived)
            guard !adapted.decisions.isEmpty, context.canResend,
                let asking = try await decisionAskingAgain(after: response.1, in: adapted.decisions)
            else { return response }
            var resent = context
            resent.attempt = asking.attempt + 1
            adapted.rewind(to: asking.mark, from: asking.member)
            try await adapt(&adapted, from: asking.member, resent, again: true)
            onward = resent
        }
    }

    /// Lets the members from `first` on adapt the request; the first of them adapting it `again` takes no decision.
    private func adapt(
        _ request: inout AdaptedRequest,
        from first: Int,
        _ context: RequestContext,
        again: Bool
    ) async throws {
        for index in members.indices.dropFirst(first) {
            request.begin(member: index, attempt: context.attempt, takesDecisions: !again || index != first)
            do {
                try await members[index].adapt(&request, context: context)
            } catch {
                // The request never goes: what asked to hear of its sending hears that it did not.
                request.sent(mayHaveArrived: false)
                throw failure(error, of: index)
            }
        }
    }

    /// The last decision made, going backwards, that wants the request sent again after `response`.
    private func decisionAskingAgain(
        after response: ResponseHead,
        in decisions: [AdaptedRequest.Decision]
    ) async throws -> AdaptedRequest.Decision? {
        for decision in decisions.reversed() {
            do {
                if try await decision.decide(response) { return decision }
            } catch {
                throw failure(error, of: decision.member)
            }
        }
        return nil
    }

    private func failure(_ error: any Error, of index: Int) -> any Error {
        guard namesFailures else { return error }
        return NetworkError(middlewareError: error, named: String(describing: type(of: members[index])))
    }
}
