import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerEvents

extension StreamingTests {
    @Suite("JSONLinesDecoding: one line of a JSON Lines body")
    struct JSONLinesDecodingTests {
        struct Item: Decodable, Equatable {
            var name: String
            var tags: [String]
        }

        func decodingError(_ line: String, number: Int) throws -> (DecodingError, NetworkError) {
            let error = #expect(throws: NetworkError.self) {
                try JSONLinesDecoding.decodeLine(
                    Data(line.utf8), number: number, as: Item.self, decoder: ResponseDecoder())
            }
            let networkError = try #require(error)
            guard case .decoding(let decodingError, let status, let body) = networkError else {
                Issue.record("expected a decoding error, got \(networkError)")
                throw networkError
            }
            #expect(status == 200)
            #expect(body == Data(line.utf8), "the body is the line, not the whole stream")
            return (decodingError, networkError)
        }

        @Test func aLineDecodesWithTheDecodersStrategies() throws {
            struct Snake: Decodable, Equatable { var firstName: String }
            var decoder = ResponseDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let value = try JSONLinesDecoding.decodeLine(
                Data(#"{"first_name": "Ann"}"#.utf8), number: 1, as: Snake.self, decoder: decoder)
            #expect(value == Snake(firstName: "Ann"))
        }

        @Test func aMissingKeyKeepsItsKindAndPathAndSaysTheLine() throws {
            let (error, networkError) = try decodingError(#"{"tags": []}"#, number: 3)
            guard case .keyNotFound(let key, let context) = error else {
                Issue.record("expected keyNotFound, got \(error)")
                return
            }
            #expect(key.stringValue == "name")
            #expect(context.debugDescription.hasPrefix("line 3: "))
            #expect(networkError.description.contains("line 3: "))
        }

        @Test func aTypeMismatchKeepsItsCodingPath() throws {
            let (error, _) = try decodingError(#"{"name": "a", "tags": ["x", 2]}"#, number: 12)
            guard case .typeMismatch(_, let context) = error else {
                Issue.record("expected typeMismatch, got \(error)")
                return
            }
            #expect(context.codingPath.map(\.stringValue) == ["tags", "Index 1"])
            #expect(context.debugDescription.hasPrefix("line 12: "))
        }

        @Test func aNullKeepsValueNotFound() throws {
            let (error, _) = try decodingError(#"{"name": null, "tags": []}"#, number: 4)
            guard case .valueNotFound(_, let context) = error else {
                Issue.record("expected valueNotFound, got \(error)")
                return
            }
            #expect(context.codingPath.map(\.stringValue) == ["name"])
            #expect(context.debugDescription.hasPrefix("line 4: "))
        }

        @Test func invalidJSONIsCorruptedDataWithItsUnderlyingError() throws {
            let (error, _) = try decodingError(#"{"name": "#, number: 7)
            guard case .dataCorrupted(let context) = error else {
                Issue.record("expected dataCorrupted, got \(error)")
                return
            }
            #expect(context.debugDescription.hasPrefix("line 7: "))
        }

        struct Refusal: Error {}

        /// A type whose decoding throws an error of its own, not a `DecodingError`.
        struct Picky: Decodable {
            init(from decoder: any Decoder) throws { throw Refusal() }
        }

        @Test func anErrorOfTheTypesOwnBecomesTheUnderlyingErrorOfCorruptedData() throws {
            let error = #expect(throws: NetworkError.self) {
                try JSONLinesDecoding.decodeLine(Data("{}".utf8), number: 2, as: Picky.self, decoder: ResponseDecoder())
            }
            guard case .decoding(.dataCorrupted(let context), 200, _) = try #require(error) else {
                Issue.record("expected dataCorrupted, got \(String(describing: error))")
                return
            }
            #expect(context.debugDescription.hasPrefix("line 2: "))
            #expect(context.underlyingError is Refusal)
        }

        static let blankness: [(String, Bool)] = [
            ("", true), (" ", true), ("\t \r", true), ("\n", true), (" x", false), ("{}", false), ("\u{00A0}", false),
        ]

        @Test(arguments: blankness)
        func onlyJSONWhitespaceIsBlank(line: String, blank: Bool) {
            #expect(JSONLinesDecoding.isBlank(Data(line.utf8)) == blank)
        }
    }
}
