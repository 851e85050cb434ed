import Foundation
import NetworkLayerSupport

/// Where the end of the middleware chain leaves a streamed body for ``Network/stream(_:)``: the middleware see the
/// head (with empty `Data`), the caller gets the body. When a middleware sends again (a retry, a token refresh), the
/// body of the attempt it replaces is closed.
final class StreamSlot: Sendable {
    private let body = Locked<ResponseBody?>(nil)

    /// Keeps the body of the latest attempt, closing the one before.
    func put(_ new: ResponseBody) {
        let old = body.withLock { body in
            defer { body = new }
            return body
        }
        old?.discard()
    }

    /// The body of the latest attempt, if the transport was reached.
    func take() -> ResponseBody? {
        body.withLock { body in
            defer { body = nil }
            return body
        }
    }

    /// The body of the latest attempt, left in place: for a middleware that watches it end.
    var current: ResponseBody? { body.withLock { $0 } }

    deinit {
        // A send that failed after its transport answered (a deadline, a middleware's error) closes that body.
        body.withLock { $0 }?.discard()
    }
}
