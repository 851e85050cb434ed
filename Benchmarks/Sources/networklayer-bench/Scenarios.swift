import Foundation
import NetworkLayer

#if canImport(FoundationNetworking)
    // URLSession lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// One comparison: the same work written with plain URLSession and with NetworkLayer.
struct Scenario: Sendable {
    enum Unit: String, Sendable {
        case requestsPerSecond = "req/s"
        case nanosecondsPerBuild = "ns/build"
    }

    let name: String
    let unit: Unit
    /// Operations in one round.
    let operations: Int
    let plain: @Sendable () async throws -> Void
    let networkLayer: @Sendable () async throws -> Void
}

/// Something the optimizer cannot see through, so measured work is not thrown away.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// The plain side, written as a user writes URLSession code: `URLSession.shared.data(for:)` and `JSONDecoder`.
enum Plain {
    static func get<T: Decodable>(_ type: T.Type, _ url: URL) async throws -> T {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw BenchError(description: "unexpected response \(response)")
        }
        return try JSONDecoder().decode(type, from: data)
    }

    static func makeCreateRequest(_ base: URL) throws -> URLRequest {
        var request = URLRequest(url: base.appendingPathComponent("profiles"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = try JSONEncoder().encode(Fixtures.newProfile)
        return request
    }
}

enum Scenarios {
    static func all(base: URL, network: Network) -> [Scenario] {
        let small = base.appendingPathComponent("small")
        let large = base.appendingPathComponent("large")
        return [
            Scenario(
                name: "sequential small JSON", unit: .requestsPerSecond, operations: 500,
                plain: {
                    for _ in 0..<500 { consume(try await Plain.get(Profile.self, small)) }
                },
                networkLayer: {
                    for _ in 0..<500 {
                        let profile: Profile = try await network.send(BenchRoute.small(base: base))
                        consume(profile)
                    }
                }),
            Scenario(
                name: "64 concurrent small JSON", unit: .requestsPerSecond, operations: 1280,
                plain: {
                    try await concurrently(tasks: 64, each: 20) { consume(try await Plain.get(Profile.self, small)) }
                },
                networkLayer: {
                    try await concurrently(tasks: 64, each: 20) {
                        let profile: Profile = try await network.send(BenchRoute.small(base: base))
                        consume(profile)
                    }
                }),
            Scenario(
                name: "large JSON (10,000 objects)", unit: .requestsPerSecond, operations: 8,
                plain: {
                    for _ in 0..<8 { consume(try await Plain.get([Item].self, large)) }
                },
                networkLayer: {
                    for _ in 0..<8 {
                        let items: [Item] = try await network.send(BenchRoute.large(base: base))
                        consume(items)
                    }
                }),
            Scenario(
                name: "route → URLRequest, JSON body", unit: .nanosecondsPerBuild, operations: 20_000,
                plain: {
                    for _ in 0..<20_000 { consume(try Plain.makeCreateRequest(base)) }
                },
                networkLayer: {
                    for _ in 0..<20_000 { consume(try BenchRoute.create(base: base, Fixtures.newProfile).urlRequest) }
                }),
        ]
    }

    /// Runs `body` `each` times in each of `tasks` concurrent tasks.
    static func concurrently(
        tasks: Int,
        each: Int,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<each { try await body() }
                }
            }
            try await group.waitForAll()
        }
    }
}
