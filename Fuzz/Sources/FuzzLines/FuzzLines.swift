import Foundation
import NetworkLayerCore

@testable import NetworkLayerEvents

private struct Item: Decodable {
    var id: Int?
    var name: String?
}

/// One input: the lines must not depend on where the network split the bytes, none may pass the length cap, and
/// decoding each as JSON must throw or succeed, never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let limit = 1024
    var whole = LineSplitter(maximumLength: limit)
    let wholeLines = (try? whole.push(bytes)).map { $0 + [whole.finish()].compactMap { $0 } }
    let cut = bytes.isEmpty ? 0 : Int(bytes[bytes.startIndex]) % (bytes.count + 1)
    var split = LineSplitter(maximumLength: limit)
    let splitLines = (try? split.push(bytes.prefix(cut))).flatMap { first in
        (try? split.push(bytes.dropFirst(cut))).map { first + $0 + [split.finish()].compactMap { $0 } }
    }
    if let wholeLines, let splitLines {
        precondition(wholeLines == splitLines, "chunking changed the lines")
        precondition(wholeLines.allSatisfy { $0.count <= limit }, "a line passed the length cap")
        let decoder = ResponseDecoder()
        for (index, line) in wholeLines.enumerated() where !JSONLinesDecoding.isBlank(line) {
            _ = try? JSONLinesDecoding.decodeLine(line, number: index + 1, as: Item.self, decoder: decoder)
        }
    }
    return 0
}
