#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A response whose head has arrived and whose body is still arriving: what ``Network/stream(_:)`` returns.
///
/// ```swift
/// let log = try await network.stream(LogRoute.tail(id: 7))
/// print(log.statusCode, log.headers["Content-Type"] ?? "")
/// for try await line in log.body.lines { print(line) }
/// ```
public struct StreamedResponse: Sendable {
    /// The HTTP response as the transport returned it.
    public let httpResponse: HTTPURLResponse
    /// The body, as it arrives.
    public let body: ResponseBody

    /// The HTTP status code, for example `200`.
    public var statusCode: Int { httpResponse.statusCode }

    /// The response header fields; names match without regard to case.
    public var headers: HeaderFields { HeaderFields(httpResponse.headerFields) }
}
