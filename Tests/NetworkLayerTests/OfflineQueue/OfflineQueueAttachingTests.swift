import Foundation
import NetworkLayerMiddleware
import NetworkLayerTesting
import Testing

@testable import NetworkLayerCore
@testable import NetworkLayerOffline

@Suite("An offline queue replays through the network it was attached to")
struct OfflineQueueAttachingTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attach-\(UUID().uuidString)")

    @Test func aCopyOfTheNetworkChangedInAnyWayLeavesTheQueuesReplaysWhereTheyWere() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let live = MockTransport(defaultResponse: .failure(URLError(.notConnectedToInternet)))
        let network = Network(transport: live, middleware: [queue])
        #expect(await sendQueued(NoteRoute(number: 1), through: network) != nil)
        // Copies made for a test, a screen or one call: none of them takes the queue's replays.
        var other = network
        let elsewhere = MockTransport(defaultResponse: .status(201))
        other.transport = elsewhere
        other.clock = UptimeClock { 0 }
        _ = network.withMiddleware(network.middleware + [DefaultHeadersMiddleware(["X-Copy": "1"])])
        _ = other.withMiddleware([queue])
        live.respond(to: NoteRoute(number: 1), with: .status(201))
        await queue.flush()
        #expect(try queue.pendingEntries().isEmpty, "delivered through the network it was made with")
        #expect(live.requests.count == 2, "the send that queued, then the replay")
        #expect(elsewhere.requests.isEmpty, "no replay went through a copy")
    }

    @Test func attachingExplicitlyMovesTheReplaysToThatNetwork() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let offline = MockTransport(defaultResponse: .failure(URLError(.notConnectedToInternet)))
        let network = Network(transport: offline, middleware: [queue])
        #expect(await sendQueued(NoteRoute(number: 1), through: network) != nil)
        var online = network
        let elsewhere = MockTransport(defaultResponse: .status(201))
        online.transport = elsewhere
        online.attachMiddleware()
        await queue.flush()
        #expect(try queue.pendingEntries().isEmpty)
        #expect(elsewhere.requests.map(\.url) == [NoteRoute(number: 1).url])
        #expect(offline.requests.count == 1, "only the send that queued")
    }
}
