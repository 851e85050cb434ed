import Foundation

/// Splits a `multipart/form-data` body into its parts, strictly (RFC 7578, RFC 2046): what ``MultipartPart``'s
/// helpers run.
struct MultipartParser {
    let boundary: String

    private static let crlf = Data("\r\n".utf8)
    private static let closing = Data("--".utf8)
    private static let headerEnd = Data("\r\n\r\n".utf8)

    /// A parser for the boundary of a `multipart/form-data; boundary=…` media type.
    init(contentType: String) throws(MultipartPart.MalformedBody) {
        let fields = contentType.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        guard fields.first?.lowercased() == "multipart/form-data" else {
            throw MultipartPart.MalformedBody(reason: "the Content-Type is \"\(contentType)\", not multipart/form-data")
        }
        var boundary: String?
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "="), Self.trimmed(field[..<equals]).lowercased() == "boundary"
            else { continue }
            var value = Self.trimmed(field[field.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            boundary = value
        }
        guard let boundary, (1...70).contains(boundary.utf8.count) else {
            throw MultipartPart.MalformedBody(
                reason: "the Content-Type \"\(contentType)\" has no boundary of 1 to 70 characters")
        }
        self.boundary = boundary
    }

    /// The parts of `body`, in order.
    func parts(of body: Data) throws(MultipartPart.MalformedBody) -> [MultipartPart] {
        let body = Data(body)  // indices from 0, whatever slice it came from
        let first = Data("--\(boundary)".utf8)
        let delimiter = Data("\r\n--\(boundary)".utf8)
        guard body.starts(with: first) else {
            throw MultipartPart.MalformedBody(reason: "the body does not start with --\(boundary)")
        }
        var position = first.count
        var parts: [MultipartPart] = []
        while true {
            let after = body[position..<min(position + 2, body.count)]
            if after == Self.closing {
                position += 2
                break
            }
            guard after == Self.crlf else {
                throw MultipartPart.MalformedBody(reason: "a delimiter is followed by neither CRLF nor \"--\"")
            }
            position += 2
            guard let next = body.range(of: delimiter, in: position..<body.count) else {
                throw MultipartPart.MalformedBody(reason: "part \(parts.count + 1) has no delimiter after it")
            }
            parts.append(try part(body[position..<next.lowerBound], number: parts.count + 1))
            position = next.upperBound
        }
        let rest = body[position...]
        guard rest.isEmpty || rest == Self.crlf else {
            throw MultipartPart.MalformedBody(reason: "\(rest.count) bytes follow the close delimiter")
        }
        return parts
    }

    /// One part: its header lines, a blank line, and its bytes.
    private func part(_ bytes: Data, number: Int) throws(MultipartPart.MalformedBody) -> MultipartPart {
        guard !bytes.starts(with: Self.crlf), let end = bytes.range(of: Self.headerEnd) else {
            throw MultipartPart.MalformedBody(reason: "part \(number) has no header lines ended by a blank line")
        }
        guard let text = String(data: bytes[bytes.startIndex..<end.lowerBound], encoding: .utf8) else {
            throw MultipartPart.MalformedBody(reason: "the headers of part \(number) are not UTF-8")
        }
        var headers: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n") {
            let (name, value) = try header(line, number: number)
            guard headers.updateValue(value, forKey: name) == nil else {
                throw MultipartPart.MalformedBody(reason: "part \(number) has two \(name) headers")
            }
        }
        guard let disposition = headers["content-disposition"] else {
            throw MultipartPart.MalformedBody(reason: "part \(number) has no Content-Disposition")
        }
        let parameters = try Self.formDataParameters(disposition, number: number)
        guard let name = parameters["name"] else {
            throw MultipartPart.MalformedBody(reason: "the Content-Disposition of part \(number) has no name")
        }
        return MultipartPart(
            name: Self.unescaped(name), filename: parameters["filename"].map(Self.unescaped),
            contentType: headers["content-type"], data: Data(bytes[end.upperBound...]))
    }

    /// A header line as its lowercased name and its value.
    private func header(_ line: String, number: Int) throws(MultipartPart.MalformedBody) -> (String, String) {
        guard !line.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw MultipartPart.MalformedBody(
                reason: "a header line of part \(number) has a bare line break: \(line.debugDescription)")
        }
        guard let colon = line.firstIndex(of: ":"), let start = line.unicodeScalars.first,
            start != " ", start != "\t"
        else {
            throw MultipartPart.MalformedBody(
                reason: "part \(number) has a line that is not a header: \(line.debugDescription)")
        }
        return (Self.trimmed(line[..<colon]).lowercased(), Self.trimmed(line[line.index(after: colon)...]))
    }

    /// The parameters of `form-data; name="…"; filename="…"`, names lowercased; values as written, unquoted.
    ///
    /// Scanned by Unicode scalar, not by character: a quote followed by a combining mark is one character, and would
    /// hide the quote (found by FuzzMultipart).
    private static func formDataParameters(
        _ value: String, number: Int
    ) throws(MultipartPart.MalformedBody) -> [String: String] {
        var scanner = Substring(value).unicodeScalars
        let kind = trimmed(String(scanner.prefix { $0 != ";" }))
        guard kind.lowercased() == "form-data" else {
            throw MultipartPart.MalformedBody(reason: "part \(number) is \"\(kind)\", not form-data")
        }
        scanner = scanner.drop { $0 != ";" }
        var parameters: [String: String] = [:]
        while scanner.first == ";" {
            scanner = scanner.dropFirst().drop { $0 == " " || $0 == "\t" }
            let key = trimmed(String(scanner.prefix { $0 != "=" && $0 != ";" })).lowercased()
            scanner = scanner.drop { $0 != "=" && $0 != ";" }
            guard scanner.first == "=", !key.isEmpty else {
                throw MultipartPart.MalformedBody(reason: "part \(number) has a parameter without a value: \(value)")
            }
            scanner = scanner.dropFirst()
            let parameter: String
            if scanner.first == "\"" {
                // Browsers and MultipartForm escape a quote as %22, never with a backslash: the next quote ends it.
                scanner = scanner.dropFirst()
                guard let close = scanner.firstIndex(of: "\"") else {
                    throw MultipartPart.MalformedBody(reason: "part \(number) has an unclosed quote: \(value)")
                }
                parameter = String(scanner[..<close])
                scanner = scanner[scanner.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            } else {
                parameter = trimmed(String(scanner.prefix { $0 != ";" }))
                scanner = scanner.drop { $0 != ";" }
            }
            guard scanner.isEmpty || scanner.first == ";" else {
                throw MultipartPart.MalformedBody(reason: "part \(number) has text after a quoted value: \(value)")
            }
            guard parameters.updateValue(parameter, forKey: key) == nil else {
                throw MultipartPart.MalformedBody(reason: "part \(number) gives \(key) twice: \(value)")
            }
        }
        return parameters
    }

    /// A name with `%22`, `%0D` and `%0A` (either case) turned back into `"`, CR and LF; other `%` stay as they are.
    static func unescaped(_ value: String) -> String {
        var scalars = Substring(value).unicodeScalars[...]
        var result = String.UnicodeScalarView()
        while let scalar = scalars.first {
            let code = String(String.UnicodeScalarView(scalars.dropFirst().prefix(2))).uppercased()
            let replacement: Unicode.Scalar? =
                scalar == "%" ? ["22": "\"", "0D": "\r", "0A": "\n"][code] : nil
            if let replacement {
                result.append(replacement)
                scalars = scalars.dropFirst(3)
            } else {
                result.append(scalar)
                scalars = scalars.dropFirst()
            }
        }
        return String(result)
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        String(text).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }
}
