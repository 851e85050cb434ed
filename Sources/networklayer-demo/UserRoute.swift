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

/// The demo API: each case is one endpoint; the base URL is written once.
enum UserRoute: Endpoint {
    case listUsers
    case getUser(id: Int)
    case createUser(name: String, email: String)
    case deleteUser(id: Int)

    var baseURL: URL { DemoOptions.current.baseURL }

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
