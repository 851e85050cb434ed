import Foundation
public import NetworkLayerCore
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLRequest and HTTPURLResponse live in FoundationNetworking on Linux.
    public import FoundationNetworking
#endif

/// Writes one line per attempt: method, URL with its query, status, duration and size, with secrets redacted.
///
/// ```swift
/// let network = Network(transport: URLSessionTransport(), middleware: [LoggingMiddleware(sink: { print($0) })])
/// // GET https://api.example.com/users?q=ann&api_key=*** → 200 in 42 ms, 1,234 bytes
/// ```
///
/// What is never written: the values of `Authorization`, `Cookie`, `Set-Cookie` and `Proxy-Authorization`, of any
/// header whose name contains `token`, `key`, `secret` or `password` (such as `X-API-Key`), and of query items
/// with such names; bodies; and the text of errors, which may quote a URL. Other query values stay visible.
///
/// A WebSocket's handshake is written with the ws or wss URL the app opened. A credential a middleware left off the
/// request (``WithheldCredential``: a token outside its scope) is named after the line, with the reason and never
/// the value: `GET http://127.0.0.1:8766/orders → 401 in 3 ms, 0 bytes; AuthenticationMiddleware withheld
/// Authorization: http://127.0.0.1:8766 is outside its scope, …`.
/// ``curlCommand(for:includingBody:)`` renders a request the same way.
public struct LoggingMiddleware: ResponseHeadMiddleware {
    /// Whether each line also lists the request's header fields (redacted).
    public let logsHeaders: Bool
    private let sink: @Sendable (String) -> Void

    /// Creates a logging middleware.
    ///
    /// - Parameters:
    ///   - logsHeaders: Whether lines list the request's header fields too. Defaults to `false`.
    ///   - sink: Receives each line. Defaults to printing it.
    public init(logsHeaders: Bool = false, sink: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.logsHeaders = logsHeaders
        self.sink = sink
    }

    /// Sends the request on and writes a line about how it went.
    public func intercept(
        _ request: URLRequest,
        context: RequestContext,
        next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
    ) async throws -> (Data, ResponseHead) {
        let start = DispatchTime.now().uptimeNanoseconds
        let head = describe(request, context: context) + Self.uploadNote(context.upload)
        do {
            let (data, response) = try await next(request, context)
            let elapsed = Self.milliseconds(since: start)
            let withheld = Self.withheldNote(context)
            guard let body = context.streamedBody else {
                let sent = context.upload?.bytesSent.map { "sent \(Self.grouped(Int($0))) bytes, " } ?? ""
                sink(
                    "\(head) → \(response.statusCode) in \(elapsed), \(sent)\(Self.grouped(data.count)) bytes\(withheld)"
                )
                return (data, response)
            }
            // A streamed body: a line at the head, and one when the body has ended.
            sink("\(head) → \(response.statusCode) in \(elapsed), streaming\(withheld)")
            let sink = sink
            body.whenEnded { bytes, error in
                let outcome = error.map { "failed (\(Self.kind(of: $0))) after" } ?? "ended after"
                sink("\(head) → body \(outcome) \(Self.grouped(bytes)) bytes in \(Self.milliseconds(since: start))")
            }
            return (data, response)
        } catch {
            let withheld = Self.withheldNote(context)
            sink("\(head) → failed in \(Self.milliseconds(since: start)): \(Self.kind(of: error))\(withheld)")
            throw error
        }
    }

    /// "; AuthenticationMiddleware withheld Authorization: …" for each credential a middleware left off the
    /// request (the reason names origins, never a secret); empty when none was.
    private static func withheldNote(_ context: RequestContext) -> String {
        context.withheldCredentials.map { "; \($0)" }.joined()
    }

    private func describe(_ request: URLRequest, context: RequestContext) -> String {
        // A WebSocket's handshake travels the chain as http or https: the line names the URL the app opened.
        let url = request.url.map { context.isWebSocket ? Self.webSocketURL($0) : $0 }
        var text = "\(request.httpMethod ?? "GET") \(url.map(Redaction.url) ?? "(no URL)")"
        if context.attempt > 1 { text += " (attempt \(context.attempt))" }
        if logsHeaders {
            let fields = Redaction.headers(request.allHTTPHeaderFields ?? [:]).map { "\($0.name): \($0.value)" }
            text += " [\(fields.joined(separator: ", "))]"
        }
        return text
    }

    /// The ws or wss URL of a handshake sent as http or https.
    private static func webSocketURL(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case "http": components.scheme = "ws"
        case "https": components.scheme = "wss"
        default: return url
        }
        return components.url ?? url
    }

    /// " uploading 1,234 bytes" (or "a stream") for an upload: its size, never its bytes.
    private static func uploadNote(_ upload: UploadBody?) -> String {
        guard let upload else { return "" }
        guard let length = try? upload.length() else { return ", uploading a stream" }
        return ", uploading \(grouped(Int(length))) bytes"
    }

    /// 1234567 as "1,234,567".
    private static func grouped(_ count: Int) -> String {
        guard count >= 1000 else { return String(count) }
        var digits = Array(String(count))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }

    private static func milliseconds(since start: UInt64) -> String {
        "\((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) ms"
    }

    /// What failed, without the error's text.
    private static func kind(of error: any Error) -> String {
        switch error as? NetworkError {
        case .transport(let failure, _): "transport \(failure)"
        case .cancelled: "cancelled"
        case .invalidRequest(let part, _, _): "invalid request (\(part))"
        case .middleware(let name, _): "\(name)"
        case .queued: "queued for later"
        case .unacceptableStatus(let status, _, _): "HTTP \(status)"
        case .decoding(_, let status, _): "decoding (HTTP \(status))"
        case nil: "\(type(of: error))"
        }
    }

    /// A `curl` command that sends the request, with secrets redacted as in the log lines.
    ///
    /// The body is left out unless `includingBody` is `true`; bodies can hold passwords and are never redacted.
    public static func curlCommand(for request: URLRequest, includingBody: Bool = false) -> String {
        var parts = ["curl"]
        if let method = request.httpMethod, method != "GET" { parts.append("-X \(method)") }
        parts.append(quoted(request.url.map(Redaction.url) ?? ""))
        for field in Redaction.headers(request.allHTTPHeaderFields ?? [:]) {
            parts.append("-H \(quoted("\(field.name): \(field.value)"))")
        }
        if let body = request.httpBody, !body.isEmpty {
            parts.append(
                includingBody
                    ? "--data-binary \(quoted(String(decoding: body, as: UTF8.self)))"
                    : "# \(body.count)-byte body left out")
        }
        return parts.joined(separator: " ")
    }

    /// Quotes text for a POSIX shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
