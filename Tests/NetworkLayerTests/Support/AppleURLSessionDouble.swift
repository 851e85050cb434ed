import Foundation
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionTransport` as Apple's URLSession carries it, for the tests' Apple flavor on Linux (``TestFlavor``):
/// FoundationNetworking sends the bytes, and what the tests know Apple's URLSession does that FoundationNetworking
/// does not, this plays around it, so that the expectations a Mac holds meet it here first.
///
/// - Content sniffing: Apple's URLSession holds a response's head back, with its first body bytes, until 512 bytes
///   have arrived or the body ended, when it may sniff the content type: unless the type is `application/json`, or
///   `X-Content-Type-Options: nosniff` stands beside a `Content-Type` (the rule the article Platforms gives).
/// - Fields it manages: of a request's `Proxy-Authorization`, Apple's URLSession may "ignore the value you set, or
///   overwrite it with its own value, or simply not send it" (Apple's `URLRequest` reference, "Reserved HTTP
///   headers"); this sends none.
/// - A header name with a line break: Apple's `URLRequest` may drop it as it is set
///   (``setValue(_:forHTTPHeaderField:in:)``).
///
/// On a Mac and in the Linux flavor the tests use the transport itself (``wrapsTransports``). One difference is
/// left: a body that fails while its head is held back comes with its head here, and fails when read; Apple's
/// URLSession reports the failure instead of the head.
final class AppleURLSessionDouble: DeadlineKeepingTransport {
    let transport: URLSessionTransport

    init(_ transport: URLSessionTransport) {
        self.transport = transport
    }

    /// Whether the tests' `URLSessionTransport`s go through the double: in the Apple flavor, where URLSession is not
    /// Apple's.
    static var wrapsTransports: Bool { TestFlavor.isApple && !URLSessionEngine.isApples }

    /// How many body bytes Apple's URLSession waits for before it hands a sniffed response's head over.
    static let sniffedBytes = 512

    /// The request fields Apple's URLSession manages itself, which this double never sends.
    static let managedFields = ["Proxy-Authorization"]

    /// Sets a header field on `request` as Apple's `URLRequest` may, in the Apple flavor on Linux (a name with a line
    /// break is dropped); elsewhere the platform's own `URLRequest` sets it as it does (FoundationNetworking keeps it,
    /// and the transport must refuse it; on a Mac, Apple's decides).
    static func setValue(_ value: String, forHTTPHeaderField name: String, in request: inout URLRequest) {
        if wrapsTransports && name.contains(where: \.isNewline) { return }
        request.setValue(value, forHTTPHeaderField: name)
    }

    /// Whether Apple's URLSession may sniff the content type of `response`, and holds its head back meanwhile.
    static func sniffs(_ response: HTTPURLResponse) -> Bool {
        let type = response.value(forHTTPHeaderField: "Content-Type")?
            .split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if type == "application/json" { return false }
        let noSniff = response.value(forHTTPHeaderField: "X-Content-Type-Options")?.lowercased() == "nosniff"
        return !(noSniff && type != nil)
    }

    private func managed(_ request: URLRequest) -> URLRequest {
        var request = request
        for name in Self.managedFields { request.setValue(nil, forHTTPHeaderField: name) }
        return request
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await send(checked: try RequestRules.check(request))
    }

    func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await transport.send(checked: managed(request))
    }

    func stream(_ request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        try await stream(checked: try RequestRules.check(request))
    }

    func stream(checked request: URLRequest) async throws -> (ResponseBody, HTTPURLResponse) {
        let start = ContinuousClock.now
        let (body, response) = try await transport.stream(checked: managed(request))
        guard Self.sniffs(response), case .streamed(let lifetime) = body.source else { return (body, response) }
        // The head waits, within the request's deadline, as Apple's URLSession holds it back while it sniffs.
        let deadline = start + .seconds(request.timeoutInterval)
        while lifetime.stream.bufferedBytes < Self.sniffedBytes && !lifetime.stream.hasEnded {
            guard ContinuousClock.now < deadline else {
                throw NetworkError.deadlineExceeded(after: request.timeoutInterval, for: request)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return (body, response)
    }

    func upload(_ request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await upload(checked: try RequestRules.check(request, uploading: body), from: body)
    }

    func upload(checked request: URLRequest, from body: UploadBody) async throws -> (Data, HTTPURLResponse) {
        try await transport.upload(checked: managed(request), from: body)
    }

    func openWebSocket(_ request: URLRequest, settings: WebSocketSettings) async throws -> WebSocketOpening {
        try await transport.openWebSocket(managed(request), settings: settings)
    }
}
