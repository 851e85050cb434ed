public import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Sends a request again when the failure is likely to pass: a lost or refused connection, a timeout, or a status
/// of 408, 429, 500, 502, 503 or 504.
///
/// ```swift
/// let network = Network(transport: URLSessionTransport(), middleware: [RetryMiddleware(maxAttempts: 3)])
/// ```
///
/// - Only what is safe to repeat is sent again: an idempotent method (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), or a
///   request that carries an `Idempotency-Key`, unless the route says ``RequestOptions/retry`` `= .always`;
///   `.never` turns retrying off for a route (``RetryOption/allowsSendingAgain(_:)``, the one rule).
/// - `maxAttempts` counts the first attempt: 3 is the first send and at most two more.
/// - Between attempts it waits with exponential backoff and full jitter: a random time up to
///   `baseDelay × 2^(attempt − 1)`, at most `maxDelay`.
/// - A `Retry-After` header, in seconds or as an HTTP date, sets the wait instead. When it asks for longer than
///   `maxDelay`, or for longer than the send's deadline allows, the response is returned at once instead.
/// - It waits on the network's clock (``RequestContext/clock``, ``Network/clock``): a test that gives its network a
///   clock of its own sees the waits there. Cancelling the task ends a wait at once with ``NetworkError/cancelled``;
///   the whole send, every attempt and wait included, stays within ``Network/timeout``.
public struct RetryMiddleware: ResponseHeadMiddleware {
    /// The most attempts per send, the first included.
    public let maxAttempts: Int
    /// The backoff before the second attempt, in seconds; it doubles with each attempt.
    public let baseDelay: TimeInterval
    /// The longest wait between two attempts, in seconds.
    public let maxDelay: TimeInterval

    /// How the middleware waits; `nil` waits on the context's clock.
    private let sleep: (@Sendable (TimeInterval) async throws -> Void)?
    private let now: @Sendable () -> Date
    private let random: @Sendable (ClosedRange<Double>) -> Double

    /// The statuses worth another attempt: 408, 429, 500, 502, 503 and 504.
    public static let retryableStatuses: Set<Int> = TransientStatus.codes
    /// The methods that are safe to send again.
    public static let idempotentMethods = RetryOption.idempotentMethods

    /// Creates a retry middleware.
    ///
    /// - Parameters:
    ///   - maxAttempts: The most attempts per send, the first included. Defaults to 3.
    ///   - baseDelay: The backoff before the second attempt, in seconds. Defaults to 0.5.
    ///   - maxDelay: The longest wait between attempts, in seconds. Defaults to 30.
    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30) {
        self.init(
            maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay,
            sleep: nil, now: { Date() }, random: { Double.random(in: $0) })
    }

    /// Creates a retry middleware that waits (on the context's clock when `sleep` is `nil`), reads the wall-clock
    /// time (for a `Retry-After` date) and draws its jitter with the functions given.
    init(
        maxAttempts: Int,
        baseDelay: TimeInterval,
        maxDelay: TimeInterval,
        sleep: (@Sendable (TimeInterval) async throws -> Void)?,
        now: @escaping @Sendable () -> Date,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.sleep = sleep
        self.now = now
        self.random = random
    }

    /// Sends the request, and again after a wait while the outcome is worth retrying and attempts remain.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        var context = context
        while true {
            let outcome: Result<(Data, ResponseHead), any Error>
            do {
                outcome = .success(try await next(request, context))
            } catch {
                outcome = .failure(error)
            }
            // The outcome before the options: most outcomes are final, and the options' lookup costs more.
            guard context.attempt < maxAttempts, let delay = delay(after: outcome, attempt: context.attempt),
                context.canResend, context.options.retry.allowsSendingAgain(request),
                delay < context.timeRemaining
            else { return try outcome.get() }
            if let sleep { try await sleep(delay) } else { try await context.clock.sleep(delay) }
            context.attempt += 1
        }
    }

    /// How long to wait before the next attempt, or `nil` if the outcome is final.
    func delay(after outcome: Result<(Data, ResponseHead), any Error>, attempt: Int) -> TimeInterval? {
        switch outcome {
        case .success(let (_, response)):
            guard Self.retryableStatuses.contains(response.statusCode) else { return nil }
            if let retryAfter = response.value(forHTTPHeaderField: "Retry-After") {
                guard let asked = RetryAfter.seconds(from: retryAfter, now: now()) else { return backoff(attempt) }
                return asked <= maxDelay ? asked : nil
            }
            return backoff(attempt)
        case .failure(let error):
            guard (error as? NetworkError)?.transience?.isWorthRetrying == true else { return nil }
            return backoff(attempt)
        }
    }

    /// Full jitter: a random wait up to the exponential cap.
    private func backoff(_ attempt: Int) -> TimeInterval {
        random(0...ExponentialBackoff(base: baseDelay, maximum: maxDelay).delay(beforeAttempt: attempt))
    }
}
