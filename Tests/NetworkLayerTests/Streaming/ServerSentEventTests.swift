import Foundation
import NetworkLayer
import Testing

extension StreamingTests {
    @Suite("ServerSentEvent: decoding its data and printing it")
    struct ServerSentEventTests {
        struct Delta: Decodable, Equatable {
            var text: String
            var index: Int
        }

        @Test func anEventHasTheStandardDefaults() {
            let event = ServerSentEvent(data: "x")
            #expect(event.type == "message")
            #expect(event.id == nil)
            #expect(event.retry == nil)
        }

        @Test func theDataDecodesAsJSON() throws {
            let event = ServerSentEvent(type: "delta", data: #"{"text": "hi", "index": 2}"#)
            #expect(try event.decode(Delta.self) == Delta(text: "hi", index: 2))
        }

        @Test func theDecoderPassedIsUsed() throws {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            struct Snake: Decodable, Equatable { var lastIndex: Int }
            #expect(
                try ServerSentEvent(data: #"{"last_index": 3}"#).decode(Snake.self, using: decoder)
                    == Snake(lastIndex: 3))
        }

        @Test func aDecodingFailureKeepsTheDecodingErrorAndTheData() throws {
            let data = #"{"text": "hi"}"#
            let error = #expect(throws: NetworkError.self) { try ServerSentEvent(data: data).decode(Delta.self) }
            guard case .decoding(.keyNotFound(let key, _), let status, let body) = try #require(error) else {
                Issue.record("expected keyNotFound, got \(String(describing: error))")
                return
            }
            #expect(key.stringValue == "index")
            #expect(status == 200)
            #expect(body == Data(data.utf8))
        }

        @Test func dataThatIsNotJSONFailsAsCorruptedData() throws {
            let error = #expect(throws: NetworkError.self) { try ServerSentEvent(data: "[DONE]").decode(Delta.self) }
            guard case .decoding(.dataCorrupted, 200, _) = try #require(error) else {
                Issue.record("expected dataCorrupted, got \(String(describing: error))")
                return
            }
        }

        static let descriptions: [(ServerSentEvent, String)] = [
            (ServerSentEvent(data: "hello"), "message: hello"),
            (
                ServerSentEvent(id: "7", type: "delta", data: "a\nb\r\nc", retry: 3000),
                #"delta (id 7, retry 3000 ms): a\nb\r\nc"#
            ),
            (ServerSentEvent(id: "7", data: ""), "message (id 7): "),
            (ServerSentEvent(data: String(repeating: "é", count: 80)), "message: " + String(repeating: "é", count: 80)),
            (
                ServerSentEvent(data: String(repeating: "é", count: 81)),
                "message: " + String(repeating: "é", count: 80) + "…"
            ),
        ]

        @Test(arguments: descriptions)
        func theDescriptionIsOneShortLine(event: ServerSentEvent, expected: String) {
            #expect(event.description == expected)
            #expect(!event.description.contains("\n"))
        }
    }
}
