import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl

/// Ways to cut one body into chunks, so that a parser's tests can assert that the cut never changes what it parses.
enum StreamChunking {
    /// `bytes` cut at each of `offsets`, in order.
    static func split(_ bytes: Data, at offsets: [Int]) -> [Data] {
        var chunks: [Data] = []
        var start = 0
        for offset in offsets + [bytes.count] {
            chunks.append(bytes.subdata(in: start..<offset))
            start = offset
        }
        return chunks
    }

    /// `bytes` in chunks of `size` bytes, the last one shorter.
    static func chunks(of bytes: Data, size: Int) -> [Data] {
        split(bytes, at: Array(stride(from: size, to: bytes.count, by: size)))
    }

    /// Every way to cut `bytes` into two chunks (including an empty first or last chunk), then into chunks of each
    /// size from 1 to 8 bytes.
    static func everyChunking(of bytes: Data) -> [[Data]] {
        (0...bytes.count).map { split(bytes, at: [$0]) } + (1...8).map { chunks(of: bytes, size: $0) }
    }
}

/// Checks that `error` is the size-cap error of a streamed item, with `message` as its description.
func expectTooLarge(_ error: NetworkError, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .transport(.responseTooLarge, let underlying) = error, let urlError = underlying as? URLError else {
        Issue.record("expected responseTooLarge, got \(error)", sourceLocation: sourceLocation)
        return
    }
    #expect(urlError.code == .dataLengthExceedsMaximum, sourceLocation: sourceLocation)
    #expect(urlError.userInfo[NSLocalizedDescriptionKey] as? String == message, sourceLocation: sourceLocation)
}
