import Foundation
import NetworkLayerSupport

/// libcurl's limit on one line of a response's head, which both transports meet on Linux (FoundationNetworking runs
/// on libcurl too): a longer line ends the transfer with libcurl's "Out of memory" (`CURLE_OUT_OF_MEMORY`, up to
/// libcurl 8.5; `CURLE_TOO_LARGE` since 8.6), which is an oversized response, not a failure of the client.
@_spi(TransportKit) public enum HeaderLineLimit {
    /// The failure for a head with a line over the limit: ``NetworkError/TransportFailure/badResponse``, with
    /// libcurl's own text kept in the description.
    public static func exceeded(libcurlText: String, url: URL?) -> NetworkError {
        let description = "a line of the response's head is longer than libcurl's 100 KiB limit (\(libcurlText))"
        return .transport(
            .badResponse, underlyingError: URLError(.badServerResponse, description: description, url: url))
    }
}
