import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("StatusHookMiddleware")
struct StatusHookMiddlewareTests {
    @Test func runsTheActionForTheChosenStatusesAndChangesNothing() async throws {
        let seen = Locked<[Int]>([])
        let mock = MockTransport()
        mock.respond(to: UserRoute.getUser(id: 1), with: .status(401, body: Data("expired".utf8)))
        mock.respond(to: UserRoute.getUser(id: 2), with: .json(aliceJSON))
        mock.respond(to: UserRoute.getUser(id: 3), with: .status(500))
        let network = Network(
            transport: mock,
            middleware: [
                StatusHookMiddleware(statuses: [401, 500]) { response in
                    seen.withLock { $0.append(response.statusCode) }
                }
            ])
        let unauthorized = await #expect(throws: NetworkError.self) {
            let _: User = try await network.send(UserRoute.getUser(id: 1))
        }
        #expect(unauthorized?.statusCode == 401)
        #expect(unauthorized?.responseBody == Data("expired".utf8))
        #expect(seen.withLock { $0 } == [401], "the action ran before the caller got the error")
        let user: User = try await network.send(UserRoute.getUser(id: 2))
        #expect(user == alice)
        _ = await network.send(UserRoute.getUser(id: 3)) as Result<Data, NetworkError>
        #expect(seen.withLock { $0 } == [401, 500])
    }
}
