import Foundation
import NetworkLayer
import NetworkLayerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The README's code, compiled and run: if the README's examples stop compiling or behaving, this fails.
enum Readme {
    struct User: Codable {
        var id: Int
        var name: String
        var email: String
    }
    struct NewUser: Codable {
        var name: String
        var email: String
    }

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

    enum SearchRoute: Endpoint {
        case users(matching: String)

        var baseURL: URL { URL(string: "https://api.example.com/v1")! }
        var path: String { "/users" }
        var queryItems: [URLQueryItem] {
            switch self {
            case .users(let text): [URLQueryItem(name: "q", value: text)]
            }
        }
    }

    final class CannedTransport: Transport {
        let status: Int
        let body: Data
        init(status: Int = 200, body: Data) {
            self.status = status
            self.body = body
        }

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let response = HTTPURLResponse(
                url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
            return (body, response)
        }
    }
}

@Suite("README examples")
struct ReadmeTests {
    @Test func quickStartCallSitesCompileAndWork() async throws {
        typealias User = Readme.User
        typealias UserRoute = Readme.UserRoute
        let network = Network(transport: MockTransport(defaultResponse: .json(aliceJSON)))

        let user: User = try await network.send(UserRoute.getUser(id: 1))
        let same = try await network.send(UserRoute.getUser(id: 1), as: User.self)
        let result: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 1))
        await network.send(UserRoute.getUser(id: 1)) { (result: Result<User, NetworkError>) in print(result) }.value
        let response: Response<User> = try await network.send(UserRoute.getUser(id: 1))
        try await network.send(UserRoute.deleteUser(id: 1))
        let raw: Data = try await network.send(UserRoute.getUser(id: 1))

        #expect(user.email == "alice@example.com")
        #expect(same.id == 1)
        #expect(try result.get().name == "Alice")
        #expect(response.statusCode == 200)
        #expect(raw == Data(aliceJSON.utf8))
    }

    @Test func staticCallsUseTheDefaultNetwork() async throws {
        // Network.default is real URLSession traffic; an invalid route shows the static call compiles and
        // reaches the same validation without touching the network.
        let error = await #expect(throws: NetworkError.self) {
            let _: Readme.User = try await Network.send(TestRoute("ftp://example.invalid/"))
        }
        guard case .invalidRequest(.url, _, _) = error else {
            Issue.record("expected invalidRequest(.url), got \(String(describing: error))")
            return
        }
    }

    @Test func searchRouteEncodesThePlus() throws {
        let url = try Readme.SearchRoute.users(matching: "a+b&c").url
        #expect(url.absoluteString == "https://api.example.com/v1/users?q=a%2Bb%26c")
    }

    @Test func cannedTransportExample() async throws {
        let network = Network(
            transport: Readme.CannedTransport(status: 404, body: Data(#"{"error":"no such user"}"#.utf8)))
        do {
            let _: Readme.User = try await network.send(Readme.UserRoute.getUser(id: 2))
            Issue.record("expected a 404")
        } catch {
            #expect(error.statusCode == 404)
            #expect(error.description == #"HTTP 404 Not Found; body: {"error":"no such user"}"#)
        }
    }
}
