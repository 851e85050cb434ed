import Foundation
import NetworkLayerCore

@testable import NetworkLayerEvents

private struct Item: Decodable {
    var id: Int?
    var name: String?
}

/// One input: the lines must not depend on where the network split the bytes, must be those of a naive split of the
/// whole body, none may pass the length cap, and decoding each as JSON must throw or succeed, never crash.
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
        // A naive split of the whole body: at every LF, one CR before it dropped, a last line kept if not empty.
        var naive = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? Data(line.dropLast()) : Data(line)
        }
        if bytes.last == 0x0A || bytes.isEmpty {
            naive.removeLast()
        } else if let last = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).last {
            naive[naive.count - 1] = Data(last)  // the body's last line keeps a CR that ends it
        }
        precondition(wholeLines == naive, "the lines differ from a naive split")
        precondition(wholeLines.allSatisfy { $0.count <= limit }, "a line passed the length cap")
        let decoder = ResponseDecoder()
        for (index, line) in wholeLines.enumerated() where !JSONLinesDecoding.isBlank(line) {
            _ = try? JSONLinesDecoding.decodeLine(line, number: index + 1, as: Item.self, decoder: decoder)
        }
    }
    return 0
}
