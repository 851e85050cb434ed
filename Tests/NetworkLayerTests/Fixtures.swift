import Foundation
import NetworkLayer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var email: String
}

struct NewUser: Codable, Equatable {
    var name: String
    var email: String
}

let alice = User(id: 1, name: "Alice", email: "alice@example.com")

/// The route enum of DESIGN.md, as the README writes it.
typealias UserRoute = Readme.UserRoute

/// A route whose parts are plain values, for table-driven tests.
struct TestRoute: URLRequestProtocol {
    var url: URL
    var method: HTTPMethod = .get
    var requestBody: RequestBody?
    var headers: [String: String]?

    init(
        _ url: String = "https://api.example.com/items",
        method: HTTPMethod = .get,
        body: RequestBody? = nil,
        headers: [String: String]? = nil
    ) {
        self.url = URL(string: url)!
        self.method = method
        self.requestBody = body
        self.headers = headers
    }
}

/// An `Endpoint` with every part given, for URL-joining tables.
struct TestEndpoint: Endpoint {
    var baseURL: URL
    var path: String
    var queryItems: [URLQueryItem] = []
    var method: HTTPMethod = .get
    var requestBody: RequestBody?

    init(
        base: URL, path: String, query: [URLQueryItem] = [], method: HTTPMethod = .get, body: RequestBody? = nil
    ) {
        self.baseURL = base
        self.path = path
        self.queryItems = query
        self.method = method
        self.requestBody = body
    }

    init(base: String, path: String, query: [URLQueryItem] = []) {
        self.init(base: URL(string: base)!, path: path, query: query)
    }
}

/// A transport that answers with a closure and records every request it is given.
final class StubTransport: Transport {
    typealias Reply = @Sendable (URLRequest) async throws -> (status: Int, headers: [String: String], body: Data)

    private let reply: Reply
    private let recorded = Recorder()

    init(_ reply: @escaping Reply) {
        self.reply = reply
    }

    convenience init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.init { _ in (status, headers, body) }
    }

    convenience init(json: String, status: Int = 200) {
        self.init(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
    }

    var requests: [URLRequest] { recorded.requests }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        recorded.append(request)
        let (status, headers, body) = try await reply(request)
        let url = try #require(request.url)
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
        return (body, response)
    }
}

/// Requests recorded across threads.
final class Recorder: Sendable {
    private let storage = Guarded<[URLRequest]>([])
    var requests: [URLRequest] { storage.withLock { $0 } }
    func append(_ request: URLRequest) { storage.withLock { $0.append(request) } }
}

/// A lock-guarded value for test bookkeeping.
///
/// `@unchecked Sendable` is sound: `value` is private and only touched inside `withLock` while `lock` is held.
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

let aliceJSON = #"{"id":1,"name":"Alice","email":"alice@example.com"}"#

extension NetworkError {
    /// Whether this is `.cancelled`; `NetworkError` is not `Equatable` because it carries underlying errors.
    var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
