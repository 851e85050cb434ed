import Foundation

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// A response as it reaches ``Network`` from a transport: an `HTTPURLResponse` already built (every transport but
/// ``CurlTransport``, and every middleware), or the parts of one, built only when something asks for it.
///
/// On Linux, `HTTPURLResponse`'s initializer capitalizes every header name, compares each with `WWW-Authenticate`
/// through `NSString` and scans the fields three more times: measured, about 12% of the CPU a small request costs
/// ``CurlTransport``, for a response that `let value: T = try await network.send(route)` never shows. Such a send reads
/// only the status; `Response<T>`, middleware, streams, uploads and errors get the built response, the same one
/// they always got.
package struct ReceivedResponse: Sendable {
    private enum Storage: Sendable {
        case built(HTTPURLResponse)
        case parts(url: URL, httpVersion: String, fields: [(name: String, value: String)])
    }

    /// The HTTP status code.
    package let statusCode: Int
    private let storage: Storage

    /// A response that is already built.
    package init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        storage = .built(response)
    }

    /// A response to build when asked for, from the parts a transport parsed: its header fields in the order they
    /// came, repeated names and all.
    package init(url: URL, statusCode: Int, httpVersion: String, fields: [(name: String, value: String)]) {
        self.statusCode = statusCode
        storage = .parts(url: url, httpVersion: httpVersion, fields: fields)
    }

    /// Header fields as `HTTPURLResponse` takes them: one entry a name, spelled as it was first written, the values
    /// of a name repeated in any case joined with ", " in their order (two spellings as two keys would leave
    /// `value(forHTTPHeaderField:)` to pick one of them).
    package static func headerFields(merging fields: [(name: String, value: String)]) -> [String: String] {
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

    /// The response as Foundation has it; built from the parts on each call, so ask once.
    ///
    /// - Throws: ``NetworkError/TransportFailure/badResponse`` if Foundation refuses the parts (FoundationNetworking's
    ///   initializer never does).
    package func httpResponse() throws(NetworkError) -> HTTPURLResponse {
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
