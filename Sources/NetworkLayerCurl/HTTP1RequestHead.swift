import Foundation
import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The bytes of an HTTP/1.1 request's head, as CurlTransport's own engine sends a request that `RequestRules`
/// checked: what libcurl would send for it over plain `http`, field for field.
///
/// The request line has the URL's path and query as the URL spells them (`/` for none; never the fragment), then
/// `Host` (with the port when it is not 80) unless the request names its own, the request's fields,
/// `Accept: */*` and the engine's `Accept-Encoding` unless the request sets them, and `Content-Length` for a body or
/// a `POST` (0 for an empty one). Nothing else: no `Expect`, no `User-Agent`, no `Connection`. The body's framing is
/// the engine's: a `Content-Length` or `Transfer-Encoding` the request names is left out, never sent beside it.
struct HTTP1RequestHead {
    /// The method, as the request line names it.
    let method: String
    /// The head's bytes, the blank line that ends it included.
    let bytes: [UInt8]
    /// Whether the request asks to close the connection after its response (`Connection: close`), so that no
    /// other request may follow it there (RFC 9112 section 9.6).
    let closesConnection: Bool
    /// Whether the request may go again on its own when a kept-alive connection closes under it after bytes of it
    /// left: an idempotent method or an `Idempotency-Key` (``RetryOption/allowsSendingAgain(method:idempotencyKey:)``,
    /// the one rule).
    let maySendAgain: Bool

    /// The head for `request` (whose method, fields and URL `RequestRules` checked), sent with `method` (a redirect's
    /// may differ from the request's) and `bodyLength` bytes of body; `acceptEncoding` is what the engine decodes.
    init?(_ request: URLRequest, method: String, bodyLength: Int, acceptEncoding: String?) {
        guard let target = request.url.flatMap(RequestTarget.init) else { return nil }
        self.method = method
        var head = "\(method) \(target.path) HTTP/1.1\r\n"
        let fields = request.allHTTPHeaderFields ?? [:]
        func has(_ name: String) -> Bool { fields.keys.contains { HeaderFields.sameName($0, name) } }
        closesConnection = fields.contains { name, value in
            HeaderFields.sameName(name, "Connection") && HTTP1ResponseParser.list(value, contains: "close")
        }
        maySendAgain = RetryOption.idempotentMethodsOnly.allowsSendingAgain(
            method: method,
            idempotencyKey: fields.first { HeaderFields.sameName($0.key, RetryOption.idempotencyKeyField) }?.value)
        if !has("Host") { head += "Host: \(target.port == 80 ? target.host : target.authority)\r\n" }
        for (name, value) in fields
        where !HeaderFields.sameName(name, "Content-Length") && !HeaderFields.sameName(name, "Transfer-Encoding") {
            head += "\(name): \(value)\r\n"
        }
        if !has("Accept") { head += "Accept: */*\r\n" }
        if let acceptEncoding, !has("Accept-Encoding") { head += "Accept-Encoding: \(acceptEncoding)\r\n" }
        if bodyLength > 0 || method == "POST" { head += "Content-Length: \(bodyLength)\r\n" }
        head += "\r\n"
        bytes = Array(head.utf8)
    }
}
