import NetworkLayer

/// A user as the demo API returns it.
struct User: Codable, Sendable, CustomStringConvertible {
    var id: Int
    var name: String
    var email: String

    var description: String { "User #\(id) \(name) <\(email)>" }
}

/// The body of a create request.
struct NewUser: Codable {
    var name: String
    var email: String
}

/// The demo API: each case is one endpoint; the base URL, production's, is written once. The demo's environment
/// sends the routes elsewhere (the in-memory API, or `--base-url`) without touching them.
enum UserRoute: Endpoint {
    case listUsers
    case getUser(id: Int)
    case createUser(name: String, email: String)
    case deleteUser(id: Int)

    static let production = URL(string: "https://api.example.com/v1")!

    var baseURL: URL { Self.production }

    var path: String {
        switch self {
        case .listUsers, .createUser: "/users"
        case .getUser(let id), .deleteUser(let id): "/users/\(id)"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .listUsers, .getUser: .get
        case .createUser: .post
        case .deleteUser: .delete
        }
    }

    var requestBody: RequestBody? {
        get throws {
            switch self {
            case .createUser(let name, let email): try .json(NewUser(name: name, email: email))
            case .listUsers, .getUser, .deleteUser: nil
            }
        }
    }

    var headers: [String: String]? { ["Accept": "application/json"] }
}
