public import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension NetworkError: CustomStringConvertible, LocalizedError {
    /// One readable line: what failed, the status, the coding path, and the start of the body.
    public var description: String {
        switch self {
        case .invalidRequest(let part, let reason, _):
            return "Invalid request (\(part)): \(reason)"
        case .transport(let failure, let error):
            return "Transport failed (\(failure)): \(Self.describe(error))"
        case .unacceptableStatus(let status, let headers, let body):
            let name = HTTPURLResponse.localizedString(forStatusCode: status)
            let withheld = headers.withheldCredentials.map { "; \($0)" }.joined()
            return "HTTP \(status) \(name)" + Self.bodySnippet(body) + withheld
        case .decoding(let error, let status, let body):
            return "Decoding failed: \(Self.describe(error)) (HTTP \(status))" + Self.bodySnippet(body)
        case .cancelled:
            return "Cancelled"
        case .middleware(let name, let error):
            return "Middleware failed (\(name)): \(Self.describe(error))"
        case .queued(let id, let error):
            return "Queued for later (\(id.uuidString)): \(Self.describe(error))"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// How many bytes of a body an error message shows.
    static let snippetLength = Snippet.length

    private static func bodySnippet(_ body: Data) -> String {
        guard !body.isEmpty else { return "; empty body" }
        let head = String(decoding: body.prefix(snippetLength), as: UTF8.self)
        let oneLine = head.split(whereSeparator: \.isNewline).joined(separator: " ")
        let more = body.count > snippetLength ? "… (\(body.count) bytes)" : ""
        return "; body: \(oneLine)\(more)"
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            let reason = (error.userInfo[NSLocalizedDescriptionKey] as? String).map { ": \($0)" } ?? ""
            return "URLError \(error.code.rawValue)\(reason)" + (error.failureURLString.map { " (\($0))" } ?? "")
        }
        return String(describing: error)
    }

    /// Describes a `DecodingError` as "keyNotFound 'email' at users[3]: No value associated with key…".
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "keyNotFound '\(key.stringValue)' at \(path(context.codingPath)): \(context.debugDescription)"
        case .typeMismatch(let type, let context):
            return "typeMismatch \(type) at \(path(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound \(type) at \(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "dataCorrupted at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    /// Renders a coding path as `users[3].email`, or "the top level" when it is empty.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "the top level" : text
    }
}

extension URLError {
    fileprivate var failureURLString: String? {
        failingURL?.absoluteString
    }
}
