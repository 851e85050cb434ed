import NetworkLayer

/// A `Transport` that serves a small users API from memory, so the demo runs with no server.
///
/// `GET /users`, `GET /users/:id`, `POST /users` and `DELETE /users/:id`; anything else is a 404.
actor InMemoryUsersAPI: Transport {
    private var users: [Int: User] = [
        1: User(id: 1, name: "Alice", email: "alice@example.com"),
        2: User(id: 2, name: "Bob", email: "bob@example.com"),
    ]
    private var nextID = 3

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        let parts = url.path.split(separator: "/").suffix(2)
        let id = parts.count == 2 && parts.first == "users" ? parts.last.flatMap { Int($0) } : nil
        let isCollection = parts.last == "users"
        let (status, body) = try route(request.httpMethod ?? "GET", isCollection: isCollection, id: id, request)
        let headers = ["Content-Type": "application/json", "Content-Length": String(body.count)]
        guard
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw URLError(.badServerResponse) }
        return (body, response)
    }

    private func route(
        _ method: String,
        isCollection: Bool,
        id: Int?,
        _ request: URLRequest
    ) throws -> (Int, Data) {
        switch (method, isCollection, id) {
        case ("GET", true, _):
            return (200, try JSONEncoder().encode(users.values.sorted { $0.id < $1.id }))
        case ("POST", true, _):
            let new = try JSONDecoder().decode(NewUser.self, from: request.httpBody ?? Data())
            let user = User(id: nextID, name: new.name, email: new.email)
            users[user.id] = user
            nextID += 1
            return (201, try JSONEncoder().encode(user))
        case ("GET", false, let id?) where users[id] != nil:
            return (200, try JSONEncoder().encode(users[id]))
        case ("DELETE", false, let id?) where users[id] != nil:
            users[id] = nil
            return (204, Data())
        default:
            return (404, Data(#"{"error":"no such user"}"#.utf8))
        }
    }
}
