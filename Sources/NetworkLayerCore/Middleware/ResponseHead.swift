public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// A response's status line and header fields as the transport received them: what a ``ResponseHeadMiddleware``
/// sees, with an `HTTPURLResponse` built only when something asks for one.
///
/// ```swift
/// let (data, response) = try await next(request, context)
/// if response.statusCode == 429, let wait = response.value(forHTTPHeaderField: "Retry-After") { print(wait) }
/// ```
///
/// On Linux, FoundationNetworking's `HTTPURLResponse` initializer capitalizes every header name through `NSString`
/// and scans the fields three more times: measured, a tenth of the CPU a small request costs `CurlTransport`. A
/// middleware that reads the status and a field or two never pays for it; one that needs the whole response calls
/// ``httpURLResponse()``. Every other transport and every ``Middleware`` hand over a built response, which is kept
/// and returned as it is.
public struct ResponseHead: Sendable {
    private enum Storage: Sendable {
        case built(HTTPURLResponse)
        case parts(url: URL, httpVersion: String, fields: [(name: String, value: String)])
    }

    /// The HTTP status code.
    public let statusCode: Int
    private let storage: Storage
    /// The credentials the middleware withheld from the request, as the chain found them when the response came
    /// back: what the error of an unacceptable status carries.
    var withheldCredentials: [WithheldCredential] = []

    /// A head for a response that is already built, for a middleware that answers by itself.
    public init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        storage = .built(response)
    }

    /// A response to build when asked for, from the parts a transport parsed: its header fields in the order they
    /// came, repeated names and all.
    @_spi(TransportKit)
    public init(url: URL, statusCode: Int, httpVersion: String, fields: [(name: String, value: String)]) {
        self.statusCode = statusCode
        storage = .parts(url: url, httpVersion: httpVersion, fields: fields)
    }

    /// Whether an `HTTPURLResponse` is already built (the transport or a ``Middleware`` made one), for tests.
    package var isBuilt: Bool {
        if case .built = storage { true } else { false }
    }

    /// The URL the response came from: the last one of a redirect chain.
    public var url: URL? {
        switch storage {
        case .built(let response): response.url
        case .parts(let url, _, _): url
        }
    }

    /// The value of a header field, its name compared without regard to case; a name the server sent more than
    /// once gives its values joined with ", ", as `HTTPURLResponse` does.
    public func value(forHTTPHeaderField name: String) -> String? {
        switch storage {
        case .built(let response):
            return response.value(forHTTPHeaderField: name)
        case .parts(_, _, let fields):
            var joined: String?
            for field in fields where HeaderFields.sameName(field.name, name) {
                joined = joined.map { "\($0), \(field.value)" } ?? field.value
            }
            return joined
        }
    }

    /// Header fields as `HTTPURLResponse` takes them: one entry a name, spelled as it was first written, the values
    /// of a name repeated in any case joined with ", " in their order (two spellings as two keys would leave
    /// `value(forHTTPHeaderField:)` to pick one of them).
    @_spi(TransportKit)
    public static func headerFields(merging fields: [(name: String, value: String)]) -> [String: String] {
        var merged = [String: String](minimumCapacity: fields.count)
        var spellings = [String: String](minimumCapacity: fields.count)
        for field in fields {
            let folded = field.name.lowercasedASCII
            if let spelling = spellings[folded], let earlier = merged[spelling] {
                merged[spelling] = "\(earlier), \(field.value)"
            } else {
                spellings[folded] = field.name
                merged[field.name] = field.value
            }
        }
        return merged
    }

    /// The response as Foundation has it: the one it was made with, or one built from the parts on each call (so
    /// ask once and keep it).
    ///
    /// - Throws: ``NetworkError/TransportFailure/badResponse`` if Foundation refuses the parts (FoundationNetworking's
    ///   initializer never does).
    public func httpURLResponse() throws(NetworkError) -> HTTPURLResponse {
        switch storage {
        case .built(let response):
            return response
        case .parts(let url, let httpVersion, let fields):
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: statusCode, httpVersion: httpVersion,
                    headerFields: Self.headerFields(merging: fields))
            else {
                throw .transport(
                    .badResponse,
                    underlyingError: URLError(
                        .badServerResponse, description: "a response with status \(statusCode) that cannot be built",
                        url: url))
            }
            return response
        }
    }
}
