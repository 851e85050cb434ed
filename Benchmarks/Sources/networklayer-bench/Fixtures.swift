import Foundation
import NetworkLayer

/// The small JSON object: 216 bytes on the wire (`--write-fixtures` prints the sizes).
struct Profile: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var active: Bool
    var score: Double
    var tags: [String]
    var createdAt: String
    var bio: String
}

/// One element of the large array.
struct Item: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
    var active: Bool
    var score: Double
}

/// The body of the POST route built in the request-building scenario.
struct NewProfile: Codable, Sendable {
    var name: String
    var email: String
    var tags: [String]
}

enum Fixtures {
    static let profile = Profile(
        id: 12345, name: "Ada Lovelace", email: "ada@example.com", active: true, score: 98.5,
        tags: ["math", "engines", "poetry"], createdAt: "2024-01-02T03:04:05Z",
        bio: "Wrote the first program for the Analytical Engine.")

    static let smallJSON: Data = encode(profile)

    /// 10,000 objects, about 1 MB.
    static let largeJSON: Data = encode(
        (0..<10_000).map {
            Item(id: $0, name: "Item \($0)", email: "item\($0)@example.com", active: $0 % 2 == 0, score: Double($0) / 4)
        })

    static let newProfile = NewProfile(name: "Grace Hopper", email: "grace@example.com", tags: ["cobol", "compilers"])

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            fatalError("fixture encoding failed: \(error)")
        }
    }
}

/// The benchmark API as a NetworkLayer user writes it.
enum BenchRoute: Endpoint {
    case small(base: URL)
    case large(base: URL)
    case create(base: URL, NewProfile)

    var baseURL: URL {
        switch self {
        case .small(let base), .large(let base), .create(let base, _): base
        }
    }

    var path: String {
        switch self {
        case .small: "/small"
        case .large: "/large"
        case .create: "/profiles"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .small, .large: .get
        case .create: .post
        }
    }

    var requestBody: RequestBody? {
        get throws {
            switch self {
            case .create(_, let profile): try .json(profile)
            case .small, .large: nil
            }
        }
    }

    var headers: [String: String]? { ["Accept": "application/json"] }
}
