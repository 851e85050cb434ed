import Foundation
import NetworkLayerCore
import NetworkLayerSupport

/// The cap on one item of a streamed body (a line, a server-sent event), shared by the parsers so that both fail the
/// same way: a body that never ends an item must not grow memory without bound.
enum StreamedItemLimit {
    /// The error for an item over `limit` bytes; `item` names it for the message, for example "a line".
    static func exceeded(_ item: String, limit: Int) -> NetworkError {
        .transport(
            .responseTooLarge,
            underlyingError: URLError(.dataLengthExceedsMaximum, description: "\(item) longer than \(limit) bytes"))
    }
}
