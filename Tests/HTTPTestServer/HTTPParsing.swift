import Foundation

/// Just enough HTTP/1.1 request parsing for tests.
enum HTTPParsing {
    /// The index of the blank line ending the head, if it has arrived.
    static func endOfHead(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// How a request's body is delimited.
    enum Framing: Equatable {
        case empty
        case length(Int)
        case chunked
    }

    /// The framing the head announces; `nil` when it is malformed (a transfer coding other than chunked alone, a
    /// `Content-Length` that is not one number, or both).
    static func framing(of request: ReceivedRequest) -> Framing? {
        let codings = request.headerFields.filter { $0.name.lowercased() == "transfer-encoding" }
        let lengths = request.headerFields.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        if !codings.isEmpty {
            guard lengths.isEmpty, codings.count == 1, codings[0].value.lowercased() == "chunked" else { return nil }
            return .chunked
        }
        guard let first = lengths.first else { return .empty }
        guard Set(lengths).count == 1, first.allSatisfy(\.isASCII), first.allSatisfy(\.isNumber),
            let length = Int(first)
        else { return nil }
        return length == 0 ? .empty : .length(length)
    }

    /// Parses the request line and header fields.
    static func parseHead(_ head: [UInt8]) -> ReceivedRequest? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append((String(line[..<colon]), value))
        }
        return ReceivedRequest(
            method: String(requestLine[0]), target: String(requestLine[1]), headerFields: fields, body: Data())
    }
}

/// Reason phrases for the statuses tests use.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 205: "Reset Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 413: "Content Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
