import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// When an upload has waited too long, decided from its bytes alone: while the body goes out, only a pause of
/// ``idleTimeout`` ends it; once the whole body went out, the response has ``responseTimeout`` from the last byte.
///
/// A body that keeps moving is never cut, however long it takes. A body whose length is unknown (a `.stream` without
/// one) never shows that it is complete, so the idle timeout keeps covering the wait for its response. Before the
/// first byte (connecting, TLS, a `100 Continue`) the idle timeout counts from the start of the upload or of its
/// current attempt. While a body of known length goes out it is looked at every tenth of ``responseTimeout`` at
/// least, so the response's limit passes at most that late.
struct UploadDeadline: Sendable, Equatable {
    /// What the upload is waiting for.
    enum Phase: Sendable, Equatable {
        /// The network to take the next byte of the body.
        case sendingBody
        /// The response, after the last byte of a body of known length.
        case awaitingResponse
    }

    /// What to do when the upload is looked at.
    enum Decision: Sendable, Equatable {
        /// The upload waited its limit in `phase`: end it.
        case fire(Phase)
        /// Nothing is late yet; look again in this many seconds, when the limit would pass if nothing moves.
        case checkAgain(in: TimeInterval)
    }

    /// How long the body may go without a byte going out, in seconds.
    let idleTimeout: TimeInterval
    /// How long the response may take after the last byte of a body of known length, in seconds.
    let responseTimeout: TimeInterval

    /// The phase of an upload that counted `completed` bytes of `expected`.
    func phase(completed: Int64, expected: Int64?) -> Phase {
        guard let expected, completed >= expected else { return .sendingBody }
        return .awaitingResponse
    }

    /// Decides at `now` for an upload whose last byte was counted (or whose attempt started) at `lastActivity`,
    /// both in nanoseconds of the same monotonic clock.
    func decide(now: UInt64, lastActivity: UInt64, completed: Int64, expected: Int64?) -> Decision {
        let phase = phase(completed: completed, expected: expected)
        let limit = Self.nanoseconds(phase == .sendingBody ? idleTimeout : responseTimeout)
        let (deadline, overflow) = lastActivity.addingReportingOverflow(limit)
        if overflow { return .checkAgain(in: Self.longestCheck) }
        guard now < deadline else { return .fire(phase) }
        var next = min(Double(deadline - now) / 1_000_000_000, Self.longestCheck)
        // A body of known length may go out whole at any moment, and from then its response has only
        // `responseTimeout`: look often enough that the limit passes at most a tenth of it late.
        if phase == .sendingBody, expected != nil { next = min(next, max(responseTimeout / 10, Self.shortestCheck)) }
        return .checkAgain(in: next)
    }

    /// The error an upload ends with when its limit in `phase` passed: a ``NetworkError/TransportFailure/timedOut``
    /// transport failure, as a send that passes its deadline.
    func error(for phase: Phase, of request: URLRequest) -> NetworkError {
        let method = request.httpMethod ?? "POST"
        let description =
            switch phase {
            case .sendingBody: "\(method): no upload bytes for \(Self.format(idleTimeout)) s"
            case .awaitingResponse:
                "\(method): no response within \(Self.format(responseTimeout)) s of the upload's last byte"
            }
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
        return .transport(.timedOut, underlyingError: URLError(.timedOut, userInfo: info))
    }

    /// The longest wait between two looks, so that an infinite limit needs no special case.
    private static let longestCheck: TimeInterval = 3600
    /// The shortest wait between two looks while a body goes out: the resolution of ``DeadlineMonitor``.
    private static let shortestCheck: TimeInterval = 0.05

    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isBoundedTimeout else { return .max }
        return UInt64(max(0, seconds) * 1_000_000_000)
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds.rounded() == seconds && seconds.isFinite ? String(Int(seconds)) : String(seconds)
    }
}
