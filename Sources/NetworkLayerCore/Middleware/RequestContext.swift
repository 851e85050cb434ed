import Dispatch
public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What a middleware knows about the send it is handling besides the request itself.
///
/// A struct, so that later fields never break existing middleware.
public struct RequestContext: Sendable {
    /// The route's options (``URLRequestProtocol/options``): built-in switches and your own keys.
    public var options: RequestOptions

    /// Which attempt this is, 1 for the first; a middleware that calls `next` again passes a context with it
    /// raised by one.
    public var attempt: Int

    /// The identity of the logical request: new for each call to `send` (and each replay), the same in every
    /// attempt a middleware makes of it (a retry, a token refresh). `OfflineQueue` derives its `Idempotency-Key`
    /// from it, so the key stays the same whatever the middleware's order; a tracing middleware can use it too.
    public let requestID: UUID

    /// Where the ``Network`` sends ``Endpoint`` routes: a middleware shared by several environments
    /// (``Network/withEnvironment(_:)``) can tell them apart. ``CredentialScope/firstOrigin`` keeps one origin per
    /// environment.
    public internal(set) var environment = APIEnvironment.asDeclared

    /// When the send's overall deadline (``Network/timeout``) passes, in nanoseconds of `clock`.
    let deadline: UInt64

    /// The clock the send's deadline is measured on, the network's (``Network/clock``): the system's uptime, or a
    /// test's. A middleware that waits between attempts waits on it, as the network's own backoffs do.
    public let clock: UptimeClock

    /// The request as the route built it (or as given to ``Network/send(prepared:options:)``), before any
    /// middleware: how a middleware tells headers the route set from those another middleware added (an offline
    /// queue refuses to store a route's secrets). `nil` for a context made outside ``Network``.
    public internal(set) var routeRequest: URLRequest?

    /// What this send's attempts left behind (the credentials withheld, whether one may have reached a server),
    /// shared by every copy.
    let record: SendRecord

    /// Where the transport leaves a streamed body for the caller; `nil` for an ordinary send.
    var streamSlot: StreamSlot?

    /// Where the transport leaves the connection a WebSocket handshake opened; `nil` for any other send.
    var webSocketSlot: WebSocketSlot?

    /// The streamed body of the latest attempt, once `next` has returned for a streamed send (``isStreaming``): a
    /// middleware can watch it end with ``ResponseBody/whenEnded(_:)``, and must not read it.
    public var streamedBody: ResponseBody? { streamSlot?.current }

    /// Whether the caller reads the body as it arrives (``Network/stream(_:)``, `Network.events(_:reconnect:)`) or
    /// the request is a WebSocket's handshake (``isWebSocket``): the `Data` that `next` returns is then empty, and
    /// the body goes to the caller untouched. A middleware that keeps or replaces bodies (a cache) or sends requests
    /// later (a queue) leaves such a send alone.
    public var isStreaming: Bool { streamSlot != nil || webSocketSlot != nil }

    /// Whether the request is a WebSocket's handshake (``Network/openWebSocket(prepared:options:settings:)``): `next`
    /// returns the `101` head with empty `Data`, and the connection goes to the caller.
    public var isWebSocket: Bool { webSocketSlot != nil }

    /// The body of an upload (``Network/upload(_:from:progress:)``), which travels beside the request; `nil`
    /// for an ordinary send.
    public internal(set) var upload: UploadBody?

    /// Whether the request's body lets a middleware send it again: false for an upload from a one-shot
    /// ``UploadBody/stream(_:length:)``, whose chunks are gone once sent. A middleware that retries or refreshes a
    /// token returns the response it has instead; a second `next` for such a body fails with
    /// ``NetworkError/invalidRequest(_:reason:underlyingError:)``.
    public var canResend: Bool { upload?.isReplayable ?? true }

    /// Whether the request uploads a body that travels beside it (``Network/upload(_:from:progress:)``): a
    /// middleware that keeps or replays requests (a cache, a queue) leaves it alone.
    public var isUpload: Bool { upload != nil }

    /// Creates a context for a send that may take `timeRemaining` seconds from now.
    public init(options: RequestOptions = RequestOptions(), attempt: Int = 1, timeRemaining: Double) {
        self.init(
            options: options, attempt: attempt, timeRemaining: timeRemaining, clock: .system, endsWithAChain: false)
    }

    /// Creates a context whose deadline is measured on `clock`.
    init(options: RequestOptions, attempt: Int, timeRemaining: Double, clock: UptimeClock, endsWithAChain: Bool = true)
    {
        record = SendRecord(endsWithAChain: endsWithAChain)
        self.options = options
        self.attempt = attempt
        self.requestID = RequestIdentity.next()
        self.clock = clock
        self.deadline = clock.deadline(in: timeRemaining)
    }

    /// The seconds left before the overall deadline, never below zero: a middleware that waits (a backoff, a token
    /// refresh) must not wait longer.
    public var timeRemaining: Double {
        clock.secondsRemaining(until: deadline)
    }
}

/// Identities of logical requests: a random UUID made once per process with a count folded into its last eight
/// bytes, so that each is unique (random across processes and devices, counted within one) without asking the system
/// for 16 random bytes on every send.
enum RequestIdentity {
    private static let base = UUID().uuid
    private static let count = Locked<UInt64>(0)

    /// The next identity: never one handed out before in this process.
    static func next() -> UUID {
        let number = count.withLock { count in
            count &+= 1
            return count
        }
        var uuid = base
        withUnsafeMutableBytes(of: &uuid) { bytes in
            // Bytes 8 to 15; the variant bits at the top of byte 8 stay as they are below 2^62 requests.
            for index in 0..<8 { bytes[15 - index] ^= UInt8(truncatingIfNeeded: number >> (8 * UInt64(index))) }
        }
        return UUID(uuid: uuid)
    }
}
