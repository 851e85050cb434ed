public import Foundation

/// What a ``MockTransport`` answers: a status with headers and a body, or a thrown error, optionally after a delay.
///
/// ```swift
/// mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
/// mock.respond(to: UserRoute.getUser(id: 2), with: .status(404, body: Data(#"{"error":"no such user"}"#.utf8)))
/// mock.respond(to: UserRoute.getUser(id: 3), with: .failure(URLError(.notConnectedToInternet)))
/// mock.respond(to: UserRoute.getUser(id: 5), with: .json(alice).delayed(by: .milliseconds(200)))
/// ```
public struct MockResponse: Sendable {
    /// What the transport does.
    enum Outcome: Sendable {
        case response(status: Int, headers: [String: String], body: Data)
        case failure(any Error)
    }

    let outcome: Outcome
    /// How long to wait before answering, in nanoseconds.
    let delay: UInt64

    private init(_ outcome: Outcome, delay: UInt64 = 0) {
        self.outcome = outcome
        self.delay = delay
    }

    /// A response with a JSON-encoded body and `Content-Type: application/json`.
    ///
    /// If the value cannot be encoded, the send fails with the `EncodingError`, so the test shows the problem.
    public static func json(
        _ value: some Encodable,
        status: Int = 200,
        headers: [String: String] = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) -> MockResponse {
        do {
            return .data(try encoder.encode(value), status: status, headers: jsonHeaders(headers))
        } catch {
            return .failure(error)
        }
    }

    /// A response whose body is this JSON text, with `Content-Type: application/json`: `.json(#"{"id":1}"#)`.
    ///
    /// A `String` is taken as JSON text as written, not encoded as a JSON string value.
    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        .data(Data(text.utf8), status: status, headers: jsonHeaders(headers))
    }

    /// A response with these body bytes.
    public static func data(_ body: Data, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        MockResponse(.response(status: status, headers: headers, body: body))
    }

    /// A response with a status code and, by default, an empty body.
    public static func status(_ status: Int, body: Data = Data(), headers: [String: String] = [:]) -> MockResponse {
        .data(body, status: status, headers: headers)
    }

    /// No response: the send throws this error, as a transport would (for example `URLError(.timedOut)`).
    public static func failure(_ error: any Error) -> MockResponse {
        MockResponse(.failure(error))
    }

    /// A response whose body is the contents of a file, for example a JSON fixture.
    ///
    /// A `.json` file gets `Content-Type: application/json` unless `headers` says otherwise. A file that cannot be
    /// read makes the send fail with ``MockTransport/FixtureError``.
    public static func file(_ url: URL, status: Int = 200, headers: [String: String] = [:]) -> MockResponse {
        do {
            let body = try Data(contentsOf: url)
            let headers = url.pathExtension.lowercased() == "json" ? jsonHeaders(headers) : headers
            return .data(body, status: status, headers: headers)
        } catch {
            return .failure(MockTransport.FixtureError(name: url.path, reason: "\(error)"))
        }
    }

    /// A response whose body is a resource file in a bundle, such as a JSON fixture in your test target:
    /// `.resource("alice.json", in: .module)`.
    ///
    /// Add the file to the test target's `resources` in Package.swift. A missing resource makes the send fail with
    /// ``MockTransport/FixtureError`` naming the file and the bundle.
    public static func resource(
        _ name: String,
        in bundle: Bundle,
        status: Int = 200,
        headers: [String: String] = [:]
    ) -> MockResponse {
        let url = URL(fileURLWithPath: name)
        let base = url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension
        guard let found = bundle.url(forResource: base, withExtension: ext.isEmpty ? nil : ext) else {
            return .failure(
                MockTransport.FixtureError(name: name, reason: "not found in bundle \(bundle.bundlePath)"))
        }
        return .file(found, status: status, headers: headers)
    }

    /// The same response after a delay; cancelling the task during the delay ends the send with cancellation.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func delayed(by duration: Duration) -> MockResponse {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return MockResponse(outcome, delay: UInt64(clamping: nanoseconds))
    }

    private static func jsonHeaders(_ headers: [String: String]) -> [String: String] {
        if headers.keys.contains(where: { $0.lowercased() == "content-type" }) { return headers }
        return headers.merging(["Content-Type": "application/json"]) { given, _ in given }
    }
}

extension MockResponse: CustomStringConvertible {
    /// A short summary for failure messages, for example `200 (17 bytes)` or `throws URLError`.
    public var description: String {
        let text: String
        switch outcome {
        case .response(let status, _, let body): text = "\(status) (\(body.count) bytes)"
        case .failure(let error): text = "throws \(type(of: error))"
        }
        return delay > 0 ? text + " after \(delay / 1_000_000) ms" : text
    }
}
