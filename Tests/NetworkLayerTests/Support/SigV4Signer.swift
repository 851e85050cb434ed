import Foundation
import NetworkLayer

@testable import HTTPTestServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// AWS Signature Version 4 for S3, as an app writes it on the package's middleware: each attempt signed with the
/// SHA-256 of what it sends, read from the request's body or, for an upload, from the body beside it
/// (`RequestContext.upload`). Signs `host`, `date` and every `x-amz-` field.
struct SigV4Signer: Middleware {
    let accessKey: String
    let secretKey: String
    let region: String
    var service = "s3"
    /// The signing time (`x-amz-date`): a test's fixed one, or now.
    var now: @Sendable () -> Date = { Date() }

    /// The SHA-256 of the empty body, in hexadecimal.
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request
        let payloadHash = try Self.payloadHash(of: request, context: context)
        let (date, day) = Self.stamps(now())
        request.setValue(payloadHash, forHTTPHeaderField: "x-amz-content-sha256")
        request.setValue(date, forHTTPHeaderField: "x-amz-date")
        request.setValue(
            try authorization(request, payloadHash: payloadHash, date: date, day: day),
            forHTTPHeaderField: "Authorization")
        return try await next(request, context)
    }

    /// The hexadecimal SHA-256 of what the request sends: its `httpBody`, or the upload beside it, in chunks.
    static func payloadHash(of request: URLRequest, context: RequestContext) throws -> String {
        var digest = SHA256Digest()
        if let upload = context.upload {
            try upload.forEachChunk { chunk in chunk.withUnsafeBytes { digest.update($0) } }
        } else if let body = request.httpBody {
            body.withUnsafeBytes { digest.update($0) }
        }
        return digest.hex()
    }

    /// `x-amz-date` (`20130524T000000Z`) and the scope's day (`20130524`), in UTC.
    static func stamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!)
        return (day + String(format: "T%02d%02d%02dZ", parts.hour!, parts.minute!, parts.second!), day)
    }

    private func authorization(_ request: URLRequest, payloadHash: String, date: String, day: String) throws
        -> String
    {
        guard let url = request.url, let host = url.host else { throw URLError(.badURL) }
        var fields: [String: String] = ["host": url.port.map { "\(host):\($0)" } ?? host]
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let lowered = name.lowercased()
            if lowered == "date" || lowered.hasPrefix("x-amz-") {
                fields[lowered] = value.trimmingCharacters(in: .whitespaces)
            }
        }
        let names = fields.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let canonical = [
            request.httpMethod ?? "GET",
            Self.canonicalPath(url),
            Self.canonicalQuery(url),
            names.map { "\($0):\(fields[$0]!)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", date, scope, Self.sha256(Data(canonical.utf8))].joined(separator: "\n")
        var key = Array("AWS4\(secretKey)".utf8)
        for part in [day, region, service, "aws4_request"] { key = Self.hmac(key: key, Array(part.utf8)) }
        let signature = Self.hmac(key: key, Array(stringToSign.utf8)).map { String(format: "%02x", $0) }.joined()
        return "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope),SignedHeaders=\(signedHeaders),Signature=\(signature)"
    }

    /// Each segment of the path as sent, decoded and encoded again as S3 wants it (all but the unreserved).
    static func canonicalPath(_ url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { uriEncode(String($0).removingPercentEncoding ?? String($0)) }
            .joined(separator: "/")
    }

    static func canonicalQuery(_ url: URL) -> String {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.map { (uriEncode($0.name), uriEncode($0.value ?? "")) }.sorted { $0 < $1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986's unreserved characters as they are, every other byte as `%XX`.
    static func uriEncode(_ text: String) -> String {
        text.utf8.map { byte -> String in
            let unreserved =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            return unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }

    static func sha256(_ data: Data) -> String {
        var digest = SHA256Digest()
        data.withUnsafeBytes { digest.update($0) }
        return digest.hex()
    }

    /// HMAC-SHA256 (RFC 2104).
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var key = key.count > 64 ? bytes(ofHex: sha256(Data(key))) : key
        key += [UInt8](repeating: 0, count: 64 - key.count)
        let inner = bytes(ofHex: sha256(Data(key.map { $0 ^ 0x36 } + message)))
        return bytes(ofHex: sha256(Data(key.map { $0 ^ 0x5c } + inner)))
    }

    static func bytes(ofHex hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
