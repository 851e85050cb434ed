public import Foundation

/// One Server-Sent Event, as a `text/event-stream` body delivers it.
///
/// ```swift
/// for try await event in network.events(ChatRoute.live(id: 3)) where event.type == "delta" {
///     let delta = try event.decode(Delta.self)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The stream's last event ID when this event was dispatched: the value of the most recent `id` field, which
    /// carries over to later events until another `id` field changes it.
    ///
    /// `nil` when no `id` field has been seen, and also after an `id` field with an empty value, which the
    /// specification defines as resetting the ID: either way a reconnection sends no `Last-Event-ID`.
    public var id: String?

    /// The event's type: its `event` field, or `"message"` when it has none.
    public var type: String

    /// The event's `data` fields, joined with `"\n"`.
    public var data: String

    /// The reconnection time in milliseconds that this event's block set with a `retry` field, if it set one.
    public var retry: Int?

    /// Creates an event, for example to serve from a test transport.
    public init(id: String? = nil, type: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.type = type
        self.data = data
        self.retry = retry
    }

    /// Decodes ``data`` as JSON: `let delta = try event.decode(Delta.self)`.
    ///
    /// A failure is ``NetworkError/decoding(_:statusCode:body:)`` with status 200 and the data as the body, so it
    /// prints and is handled like a failed `send`.
    public func decode<T: Decodable>(
        _ type: T.Type, using decoder: JSONDecoder = JSONDecoder()
    ) throws(NetworkError) -> T {
        let body = Data(data.utf8)
        do {
            return try decoder.decode(type, from: body)
        } catch let error as DecodingError {
            throw .decoding(error, statusCode: 200, body: body)
        } catch {
            // JSONDecoder throws only DecodingError today; keep any other error rather than lose it.
            let context = DecodingError.Context(
                codingPath: [], debugDescription: String(describing: error), underlyingError: error)
            throw .decoding(.dataCorrupted(context), statusCode: 200, body: body)
        }
    }
}

extension ServerSentEvent: CustomStringConvertible {
    /// How many characters of ``data`` the description shows.
    static let dataSnippetLength = 80

    /// One short line for logs: `message (id 7, retry 3000 ms): {"delta":"hi"}`, the data cut after 80 characters and
    /// its line breaks shown as `\n`.
    public var description: String {
        var details: [String] = []
        if let id { details.append("id \(id)") }
        if let retry { details.append("retry \(retry) ms") }
        let head = details.isEmpty ? type : "\(type) (\(details.joined(separator: ", ")))"
        // Cut by index rather than by comparing counts, which would walk a long event's whole data.
        let cut = data.index(data.startIndex, offsetBy: Self.dataSnippetLength, limitedBy: data.endIndex)
        var snippet = ""
        // Line breaks escaped so that a multi-line event still prints as one line; by scalar, because CRLF is one
        // Character.
        for scalar in data[..<(cut ?? data.endIndex)].unicodeScalars {
            switch scalar {
            case "\n": snippet += "\\n"
            case "\r": snippet += "\\r"
            default: snippet.unicodeScalars.append(scalar)
            }
        }
        if let cut, cut < data.endIndex { snippet += "…" }
        return "\(head): \(snippet)"
    }
}
