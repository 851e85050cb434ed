import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("DefaultHeadersMiddleware")
struct DefaultHeadersMiddlewareTests {
    @Test func addsItsHeadersAndTheRoutesOwnWinInAnyCase() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(
            transport: mock,
            middleware: [DefaultHeadersMiddleware(["X-API-Key": "k-1", "content-type": "text/plain", "Accept": "*/*"])])
        try await network.send(UserRoute.createUser(name: "Ann", email: "ann@example.com"))
        let request = try #require(mock.requests.first)
        #expect(request.value(forHTTPHeaderField: "X-API-Key") == "k-1")
        #expect(request.value(forHTTPHeaderField: "Accept") == "*/*")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json", "the route's own wins")
    }

    @Test func secretHeadersStayOnTheFirstOriginAndTheOthersGoEverywhere() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(
            transport: mock,
            middleware: [DefaultHeadersMiddleware(["X-API-Key": "k-1", "X-Client-Version": "3.2"])])
        try await network.send(TestRoute("https://api.example.com/notes"))
        try await network.send(TestRoute("https://cdn.example.net/v/7.mp4"))
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "X-API-Key") } == ["k-1", nil])
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "X-Client-Version") } == ["3.2", "3.2"])

        let local = APIEnvironment(
            "local", baseURLs: [URL(string: "https://api.example.com/v1")!: URL(string: "http://127.0.0.1:8080/v1")!])
        mock.removeRecordedRequests()
        try await network.withEnvironment(local).send(APIRoute.user(id: 1))
        #expect(
            mock.requests.map { $0.value(forHTTPHeaderField: "X-API-Key") } == ["k-1"],
            "another environment's API gets the key: one first origin per environment")

        let widened = Network(
            transport: mock, middleware: [DefaultHeadersMiddleware(["X-API-Key": "k-1"], sendingSecretsTo: .anyHost)])
        mock.removeRecordedRequests()
        try await widened.send(TestRoute("https://api.example.com/notes"))
        try await widened.send(TestRoute("https://cdn.example.net/v/7.mp4"))
        #expect(mock.requests.map { $0.value(forHTTPHeaderField: "X-API-Key") } == ["k-1", "k-1"])
    }

    @Test func aBadDefaultHeaderFailsTheSendBeforeAnythingIsSent() async throws {
        let mock = MockTransport(defaultResponse: .status(204))
        let network = Network(transport: mock, middleware: [DefaultHeadersMiddleware(["Bad Name": "x"])])
        let error = await #expect(throws: NetworkError.self) { try await network.send(UserRoute.getUser(id: 1)) }
        guard case .invalidRequest(.headers, _, _) = error else {
            Issue.record("expected invalidRequest(.headers), got \(String(describing: error))")
            return
        }
        #expect(mock.requests.isEmpty)
    }
}
