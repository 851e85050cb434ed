import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of the DocC articles, compiled and run, so the documentation cannot drift from the API.
@Suite("Documentation examples")
struct DocumentationExamplesTests {
    // "Testing your networking code", verbatim.
    @Test func showsTheUsersName() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))  // matched by method + URL
        mock.respond(to: UserRoute.getUser(id: 2), with: .status(404, body: Data(#"{"error":"no such user"}"#.utf8)))
        mock.respond(to: UserRoute.deleteUser(id: 1), with: .status(204))
        mock.respond(to: UserRoute.getUser(id: 3), with: .failure(URLError(.notConnectedToInternet)))
        // One response per call, in order; the last one repeats.
        mock.respond(to: UserRoute.getUser(id: 4), with: [.status(503), .json(alice)])
        let network = Network(transport: mock)

        let user: User = try await network.send(UserRoute.getUser(id: 1))
        #expect(user.name == "Alice")
        #expect(mock.requests.count == 1)  // every URLRequest, in order
        #expect(mock.requests[0].url?.path == "/users/1")
    }

    @Test func assertingOnRequests() async throws {
        let mock = MockTransport(defaultResponse: .json(alice, status: 201))
        let _: User = try await Network(transport: mock).send(
            UserRoute.createUser(name: "Alice", email: "alice@example.com"))

        let sent = try mock.requests[0].decodedBody(as: NewUser.self)
        #expect(sent.email == "alice@example.com")
    }

    @Test func gettingStartedDeadlinesAndRedirectRules() async throws {
        let transport = URLSessionTransport(redirectPolicy: .follow(maximumHops: 3), maximumResponseSize: 10_000_000)
        let network = Network(transport: transport, timeout: 20)
        #expect(network.timeout == 20)
        #expect(network.withTimeout(120).timeout == 120)
        #expect(transport.redirectPolicy?.maximumHops == 3)
        #expect(transport.maximumResponseSize == 10_000_000)
    }

    @Test func gettingStartedEndpoint() async throws {
        let mock = MockTransport(defaultResponse: .json(alice, status: 201))
        let network = Network(transport: mock)
        let response: Response<User> = try await network.send(
            GettingStarted.UserRoute.createUser(name: "Ann", email: "ann@example.com"))
        #expect(response.statusCode == 201)
        let request = try #require(mock.requests.first)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/users")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try request.jsonBody()["name"] as? String == "Ann")
        #expect(try GettingStarted.UserRoute.deleteUser(id: 3).urlRequest.httpMethod == "DELETE")
    }
}

/// Getting Started's route enum, verbatim.
enum GettingStarted {
    enum UserRoute: Endpoint {
        case getUser(id: Int)
        case createUser(name: String, email: String)
        case deleteUser(id: Int)

        var baseURL: URL { URL(string: "https://api.example.com/v1")! }

        var path: String {
            switch self {
            case .getUser(let id), .deleteUser(let id): "/users/\(id)"
            case .createUser: "/users"
            }
        }

        var method: HTTPMethod {
            switch self {
            case .getUser: .get
            case .createUser: .post
            case .deleteUser: .delete
            }
        }

        var requestBody: RequestBody? {
            get throws {
                switch self {
                case .createUser(let name, let email): try .json(NewUser(name: name, email: email))
                case .getUser, .deleteUser: nil
                }
            }
        }
    }
}
