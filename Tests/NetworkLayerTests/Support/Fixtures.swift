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

/// The route enum most tests send: one case per endpoint, absolute URLs, a JSON body for `createUser`.
enum UserRoute: URLRequestProtocol {
    case getUser(id: Int)
    case createUser(name: String, email: String)
    case deleteUser(id: Int)

    var url: URL {
        get throws {
            switch self {
            case .getUser(let id), .deleteUser(let id): URL(string: "https://api.example.com/users/\(id)")!
            case .createUser: URL(string: "https://api.example.com/users")!
            }
        }
    }

    var method: HTTPMethod {
        switch self {
        case .getUser: .get
        case .createUser: .post
        case .deleteUser: .delete
        }
    }

    var body: Data? {
        get throws {
            guard case .createUser(let name, let email) = self else { return nil }
            return try JSONEncoder().encode(NewUser(name: name, email: email))
        }
    }

    var headers: [String: String]? { ["Content-Type": "application/json"] }
}

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

let aliceJSON = #"{"id":1,"name":"Alice","email":"alice@example.com"}"#

extension NetworkError {
    /// Whether this is `.cancelled`; `NetworkError` is not `Equatable` because it carries underlying errors.
    var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
