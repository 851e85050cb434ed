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
    // The cap from the input, so that inputs reach it: 16 to 2,056 bytes.
    let limit = 16 + Int(bytes.first ?? 0) * 8
    var whole = LineSplitter(maximumLength: limit)
    let wholeLines = (try? whole.push(bytes)).map { $0 + [whole.finish()].compactMap { $0 } }
    // The cut from the next two bytes, not the cap's, so that a first push may pass the cap as well as stop short.
    let cut = bytes.dropFirst().prefix(2).reduce(0) { $0 << 8 | Int($1) } % (bytes.count + 1)
    var split = LineSplitter(maximumLength: limit)
    let splitLines = (try? split.push(bytes.prefix(cut))).flatMap { first in
        (try? split.push(bytes.dropFirst(cut))).map { first + $0 + [split.finish()].compactMap { $0 } }
    }
    // A naive split of the whole body: at every LF, one CR before it dropped, a last line kept if not empty (with
    // a CR that ends the body, which may then be one byte past the cap).
    let pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    var naive = pieces.map { line in line.last == 0x0D ? Data(line.dropLast()) : Data(line) }
    if bytes.last == 0x0A || bytes.isEmpty {
        naive.removeLast()
    } else if let last = pieces.last {
        naive[naive.count - 1] = Data(last)
    }
    let overCap = naive.enumerated().contains { index, line in
        let isLastUnended = index == naive.count - 1 && bytes.last != 0x0A
        return line.count - (isLastUnended && line.last == 0x0D ? 1 : 0) > limit
    }
    precondition((wholeLines == nil) == overCap, "the cap was applied otherwise than to the lines' lengths")
    precondition((wholeLines == nil) == (splitLines == nil), "chunking changed whether the cap was passed")
    if let wholeLines, let splitLines {
        precondition(wholeLines == splitLines, "chunking changed the lines")
        precondition(wholeLines == naive, "the lines differ from a naive split")
        let decoder = ResponseDecoder()
        for (index, line) in wholeLines.enumerated() where !JSONLinesDecoding.isBlank(line) {
            _ = try? JSONLinesDecoding.decodeLine(line, number: index + 1, as: Item.self, decoder: decoder)
        }
    }
    return 0
}
