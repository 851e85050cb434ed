import Foundation
import NetworkLayerSupport

/// The cap on a response body that every transport of this package enforces while the body arrives, counted on the
/// decoded bytes.
@_spi(TransportKit) public enum ResponseSizeLimit {
    /// The default cap: 100 MiB.
    public static let defaultMaximum = 100 * 1024 * 1024

    /// The error of a body over `limit` bytes; `announced` is its `Content-Length` when that gave it away.
    public static func exceeded(_ limit: Int, announced: Int64? = nil) -> NetworkError {
        let size = announced.map { " (\($0) bytes announced)" } ?? ""
        return .transport(
            .responseTooLarge,
            underlyingError: URLError(
                .dataLengthExceedsMaximum, description: "the response body exceeds the \(limit)-byte limit\(size)"))
    }
}
