import Foundation
import NetworkLayer
import NetworkLayerTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The same mock from XCTest: it imports neither XCTest nor Testing, so it works under both.
final class MockTransportXCTests: XCTestCase {
    func testRespondsAndRecordsUnderXCTest() async throws {
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .json(alice))
        mock.respond(to: UserRoute.getUser(id: 2), with: .status(404, body: Data(#"{"error":"no such user"}"#.utf8)))
        let network = Network(transport: mock)

        let user: User = try await network.send(UserRoute.getUser(id: 1))
        XCTAssertEqual(user, alice)
        let result: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 2))
        guard case .failure(let error) = result else { return XCTFail("expected a 404, got \(result)") }
        XCTAssertEqual(error.statusCode, 404)
        XCTAssertEqual(mock.requests.map { $0.url?.path }, ["/users/1", "/users/2"])
    }
}
