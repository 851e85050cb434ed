import Foundation
import NetworkLayer

#if canImport(FoundationNetworking)
    // URLSession lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// One comparison: the same work written with plain URLSession and with NetworkLayer on each of its transports.
struct Scenario: Sendable {
    enum Unit: String, Sendable {
        case requestsPerSecond = "req/s"
        case nanosecondsPerBuild = "ns/build"
    }

    /// How a round repeats one operation.
    enum Repetition: Sendable {
        /// One after another.
        case sequential(Int)
        /// In `tasks` concurrent tasks, `each` times in each.
        case concurrent(tasks: Int, each: Int)

        /// Operations in one round.
        var operations: Int {
            switch self {
            case .sequential(let count): count
            case .concurrent(let tasks, let each): tasks * each
            }
        }
    }

    /// One way of doing the work; the first side of a scenario is the baseline the others are compared with.
    struct Side: Sendable {
        let name: String
        /// One operation: a request, or building one.
        let operation: @Sendable () async throws -> Void
    }

    let name: String
    let unit: Unit
    let repetition: Repetition
    let sides: [Side]

    /// Operations in one round.
    var operations: Int { repetition.operations }

    /// One round of a side: its operation, repeated as the scenario says.
    func round(of side: Side) async throws {
        switch repetition {
        case .sequential(let count):
            for _ in 0..<count { try await side.operation() }
        case .concurrent(let tasks, let each):
            try await Scenarios.concurrently(tasks: tasks, each: each, side.operation)
        }
    }
}

/// The clients compared: plain URLSession code, and NetworkLayer on each transport this platform has.
enum Clients {
    static let plain = "plain URLSession"

    /// NetworkLayer networks by side name, in table order.
    static var networks: [(name: String, network: Network)] {
        var networks: [(String, Network)] = [("URLSessionTransport", Network(transport: URLSessionTransport()))]
        #if os(Linux)
            if let curl = try? CurlTransport() { networks.append(("CurlTransport", Network(transport: curl))) }
        #endif
        return networks
    }
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
    static func all(base: URL, networks: [(name: String, network: Network)]) -> [Scenario] {
        let small = base.appendingPathComponent("small")
        let large = base.appendingPathComponent("large")
        func sides(
            plain: @escaping @Sendable () async throws -> Void,
            networkLayer: @escaping @Sendable (Network) async throws -> Void
        ) -> [Scenario.Side] {
            [Scenario.Side(name: Clients.plain, operation: plain)]
                + networks.map { side in
                    Scenario.Side(name: side.name, operation: { try await networkLayer(side.network) })
                }
        }
        let smallSides = sides(
            plain: { consume(try await Plain.get(Profile.self, small)) },
            networkLayer: { network in
                let profile: Profile = try await network.send(BenchRoute.small(base: base))
                consume(profile)
            })
        return [
            Scenario(
                name: "sequential small JSON", unit: .requestsPerSecond, repetition: .sequential(500),
                sides: smallSides),
            Scenario(
                name: "64 concurrent small JSON", unit: .requestsPerSecond,
                repetition: .concurrent(tasks: 64, each: 20), sides: smallSides),
            Scenario(
                name: "large JSON (10,000 objects)", unit: .requestsPerSecond, repetition: .sequential(8),
                sides: sides(
                    plain: { consume(try await Plain.get([Item].self, large)) },
                    networkLayer: { network in
                        let items: [Item] = try await network.send(BenchRoute.large(base: base))
                        consume(items)
                    })),
            Scenario(
                name: "route → URLRequest, JSON body", unit: .nanosecondsPerBuild, repetition: .sequential(20_000),
                sides: [
                    Scenario.Side(name: Clients.plain, operation: { consume(try Plain.makeCreateRequest(base)) }),
                    Scenario.Side(
                        name: "NetworkLayer",
                        operation: { consume(try BenchRoute.create(base: base, Fixtures.newProfile).urlRequest) }),
                ]),
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
