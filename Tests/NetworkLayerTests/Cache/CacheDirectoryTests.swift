import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("Caches sharing one directory")
struct CacheDirectoryTests {
    let directory = temporaryDirectory()
    let budget = 35_000  // three entries fit, four do not
    let mock = MockTransport(defaultResponse: .json("\"\(String(repeating: "z", count: 10_000))\""))

    /// A cache on the shared directory that keeps nothing in memory, so every hit is a disk hit.
    func cache(disk: Int? = nil) throws -> ResponseCache {
        try ResponseCache(
            memoryCapacity: 0, directory: directory, diskCapacity: disk ?? budget, isShared: false, now: { Date() })
    }

    func send(_ path: String, through network: Network) async throws -> Response<Data> {
        try await network.send(CachedRoute(path: path))
    }

    @Test func eachServesWhatTheOtherStored() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = Network(transport: mock, middleware: [try cache()])
        let appExtension = Network(transport: mock, middleware: [try cache()])
        _ = try await send("/1", through: app)
        _ = try await send("/2", through: appExtension)
        #expect(try await send("/1", through: appExtension).source == .cache)
        #expect(try await send("/2", through: app).source == .cache)
        #expect(mock.requests.count == 2)
    }

    @Test func togetherTheyStayWithinTheDiskBudgetAndEvictTheLeastRecentlyUsed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let networks = [
            Network(transport: mock, middleware: [try cache()]), Network(transport: mock, middleware: [try cache()]),
        ]
        for number in 1...6 {
            _ = try await send("/\(number)", through: networks[number % 2])
            #expect(directoryBytes(directory) <= budget, "after /\(number)")
        }
        mock.removeRecordedRequests()
        let reader = Network(transport: mock, middleware: [try cache()])
        for number in [4, 5, 6, 3] { _ = try await send("/\(number)", through: reader) }
        #expect(mock.requests.map { $0.url?.path } == ["/3"], "/1 to /3 were evicted, /4 to /6 kept")
    }

    @Test func concurrentWritersStayWithinTheBudget() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let caches = try (0..<4).map { _ in try cache() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let network = Network(transport: mock, middleware: [caches[index % caches.count]])
                group.addTask { _ = try await send("/\(index)", through: network) }
            }
            try await group.waitForAll()
        }
        let bytes = directoryBytes(directory)
        #expect(bytes > 0 && bytes <= budget)
    }

    @Test func removeAllEmptiesTheDirectoryForEveryInstance() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try cache()
        let second = Network(transport: mock, middleware: [try cache()])
        _ = try await send("/1", through: Network(transport: mock, middleware: [first]))
        first.removeAll()
        #expect(directoryBytes(directory) == 0)
        #expect(try await send("/1", through: second).source == .network)
    }

    @Test func reopeningWithASmallerBudgetEvictsWhatNoLongerFits() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let writer = Network(transport: mock, middleware: [try cache()])
        for number in 1...3 { _ = try await send("/\(number)", through: writer) }
        _ = try cache(disk: 15_000)
        #expect(directoryBytes(directory) <= 15_000)
        mock.removeRecordedRequests()
        _ = try await send("/3", through: Network(transport: mock, middleware: [try cache()]))
        #expect(mock.requests.isEmpty, "the most recent entry is the one kept")
    }
}
