import Foundation

@testable import NetworkLayerCurl

/// What the parser made of one way of cutting the input into buffers.
private struct Outcome: Equatable {
    var body: [UInt8] = []
    var fields: [String] = []
    var status: Int?
    var isComplete = false
    var keepsConnection = false
    var bytesAfter: [UInt8] = []
    var violation: HTTP1ResponseParser.Violation?
}

/// Parses `chunks` as buffers arriving on a connection that then closes.
private func parse(_ chunks: [UnsafeRawBufferPointer], requestWasHEAD: Bool, limit: Int) -> Outcome {
    var parser = HTTP1ResponseParser(headLimit: limit, requestWasHEAD: requestWasHEAD)
    var outcome = Outcome()
    var steps = 0
    do throws(HTTP1ResponseParser.Violation) {
        chunks: for bytes in chunks {
            if parser.isComplete {
                outcome.bytesAfter += bytes
                continue
            }
            var offset = 0
            while true {
                steps += 1
                precondition(steps <= 4 * (bytes.count + 2) * chunks.count + 16, "the parser does not advance")
                switch try parser.next(in: bytes, from: offset) {
                case .needsMore: continue chunks
                case .head(let next):
                    precondition(next >= offset && next <= bytes.count, "a head offset outside the buffer")
                    offset = next
                case .body(let range):
                    precondition(range.lowerBound >= offset && range.upperBound <= bytes.count, "a body range outside")
                    precondition(!range.isEmpty, "an empty body range")
                    outcome.body += bytes[range]
                    offset = range.upperBound
                case .end(let next):
                    precondition(next >= offset && next <= bytes.count, "an end offset outside the buffer")
                    outcome.bytesAfter += bytes[next...]
                    continue chunks
                }
            }
        }
        try parser.closed()
    } catch {
        precondition(!error.description.isEmpty, "a refusal without a reason")
        outcome.violation = error
    }
    precondition(parser.head.bytes <= limit, "the head took more than its limit")
    outcome.status = parser.head.statusCode
    outcome.fields = parser.head.fields.map { "\($0.name): \($0.value)" }
    outcome.isComplete = parser.isComplete
    outcome.keepsConnection = parser.keepsConnection
    precondition(!outcome.keepsConnection || outcome.isComplete, "a connection kept after an unfinished response")
    return outcome
}

/// The first two bytes choose whether the request was a HEAD and where to cut; the rest is what the server sent.
/// Read whole, cut in two, and a byte at a time, it must come out the same: the body, the head, the end, the bytes
/// after it, the violation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 2 else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let requestWasHEAD = input[0] & 1 == 1
    let limit = 64 + Int(input[0] >> 1) * 8
    let bytes = UnsafeRawBufferPointer(rebasing: input[2...])
    let cut = Int(input[1]) % (bytes.count + 1)
    let whole = parse([bytes], requestWasHEAD: requestWasHEAD, limit: limit)
    let halves = parse(
        [UnsafeRawBufferPointer(rebasing: bytes[..<cut]), UnsafeRawBufferPointer(rebasing: bytes[cut...])],
        requestWasHEAD: requestWasHEAD, limit: limit)
    if halves != whole {  // what differed, for the report
        FileHandle.standardError.write(Data("whole: \(whole)\ncut at \(cut): \(halves)\n".utf8))
    }
    precondition(halves == whole, "cutting the input in two changed the outcome")
    if bytes.count <= 512 {
        let single = parse(
            bytes.indices.map { UnsafeRawBufferPointer(rebasing: bytes[$0..<$0 + 1]) }, requestWasHEAD: requestWasHEAD,
            limit: limit)
        precondition(single == whole, "a byte at a time changed the outcome")
    }
    precondition(whole.body.count + whole.bytesAfter.count <= bytes.count, "more bytes out than in")
    // The body read as each content coding: whole and in two pieces, the same decoded bytes and the same failure,
    // never more than the limit.
    for coding in ["gzip", "deflate"] {
        let decoded = decode(whole.body, as: coding, cut: cut, limit: limit * 64)
        precondition(decoded == decode(whole.body, as: coding, cut: 0, limit: limit * 64), "the cut changed \(coding)")
    }
    return 0
}

/// `body` decoded as `coding`, fed in two pieces cut at `cut`; the decoded bytes or the failure.
private func decode(_ body: [UInt8], as coding: String, cut: Int, limit: Int) -> String {
    guard let decoder = try? HTTP1ContentDecoder.make(for: coding, limit: limit) else { return "unavailable" }
    var decoded = Data()
    let split = min(cut, body.count)
    for piece in [body[..<split], body[split...]] {
        let outcome = Array(piece).withUnsafeBytes { bytes in
            Result { () throws(HTTP1ContentDecoder.Failure) in try decoder.decode(bytes, into: &decoded) }
        }
        if case .failure(let failure) = outcome { return "failed: \(failure)" }
        precondition(decoded.count <= limit, "decoded past the limit")
    }
    if case .failure(let failure) = Result(catching: { () throws(HTTP1ContentDecoder.Failure) in try decoder.finish() })
    {
        return "failed: \(failure) after \(decoded.count)"
    }
    return "decoded \(Array(decoded))"
}
