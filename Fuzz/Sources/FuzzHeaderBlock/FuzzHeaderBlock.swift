import Foundation

@testable import NetworkLayerCurl

/// One input, cut into lines at each LF as libcurl's header callback passes them (the first byte says whether the
/// request asked to switch protocols, as a WebSocket handshake does): the block takes each line or refuses it with a
/// typed violation that says why, never takes more than its size limit, reads only a three-digit status, and keeps
/// only what its rules allow: token names, values without control bytes, at most its field count, a complete head
/// framed by one `chunked` if by any transfer coding, and a `101` only when one was asked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    if printsVerdicts {
        printVerdict(UnsafeBufferPointer(start: start, count: count))
        return 0
    }
    let asksToSwitch = start[0] & 1 == 1
    let bytes = UnsafeRawBufferPointer(start: start + 1, count: count - 1)
    let limit = 8192
    var block = HeaderBlock(limit: limit, asksToSwitch: asksToSwitch)
    var taken = 0
    var refused = false
    forEachLine(of: bytes) { line in
        do throws(HeaderBlock.Violation) {
            try block.take(line)
            taken += line.count
            return true
        } catch {
            precondition(!error.description.isEmpty, "a refusal without a reason")
            refused = true
            return false
        }
    }
    if refused { return 0 }
    precondition(taken <= limit, "the block took more than its limit")
    if let status = block.statusCode {
        precondition((100...999).contains(status), "a status of \(status)")
        precondition(status != 101 || asksToSwitch, "a 101 nobody asked for")
    }
    precondition(block.fields.count <= HeaderBlock.maximumFieldCount, "more fields than the cap")
    for field in block.fields {
        precondition(!field.name.isEmpty, "an empty field name")
        precondition(
            field.name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }, "a name that is no token")
        precondition(!field.value.utf8.contains { ($0 < 32 && $0 != 9) || $0 == 127 }, "a control byte in a value")
    }
    if block.isComplete, let codings = block.value(ofField: "Transfer-Encoding") {
        // A list may hold empty elements (RFC 9110 section 5.6.1): "chunked," is chunked. Bytes, as libcurl reads
        // them: only spaces and tabs around an element, only ASCII letters in any case.
        let listed = codings.utf8.split(separator: UInt8(ascii: ","))
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
            .filter { !$0.isEmpty }
        precondition(
            listed.count == 1 && listed[0].utf8.map { $0 | 0x20 } == Array("chunked".utf8), "framed by \(codings)")
    }
    _ = block.value(ofField: "Content-Length")
    _ = block.value(ofField: "content-type")
    return 0
}

/// With `NETWORKLAYER_FUZZ_VERDICTS` set, the target only says what it makes of each input it is given, on standard
/// output, for the differential run against a reference parser (`.ci/differential-h11.py`).
let printsVerdicts = getenv("NETWORKLAYER_FUZZ_VERDICTS") != nil

/// One line for the input: its FNV-1a hash, then `complete STATUS VERSION` at the first complete head,
/// `refused REASON`, or `incomplete`.
func printVerdict(_ input: UnsafeBufferPointer<UInt8>) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in input { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[1...])
    var block = HeaderBlock(limit: 8192, asksToSwitch: input[0] & 1 == 1)
    var verdict = "incomplete"
    forEachLine(of: bytes) { line in
        do {
            try block.take(line)
        } catch {
            verdict = "refused \(error)".replacingOccurrences(of: "\n", with: " ")
            return false
        }
        guard block.isComplete, let status = block.statusCode else { return true }
        verdict = "complete \(status) \(block.httpVersion)"
        return false
    }
    // Unbuffered, so that what the process prints before it ends is all there.
    FileHandle.standardOutput.write(Data("\(String(hash, radix: 16)) \(verdict)\n".utf8))
}

/// Hands `bytes` to `body` line by line, cut at each LF as libcurl's header callback passes them (the last line
/// without one), until `body` returns false.
func forEachLine(of bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Bool) {
    var lineStart = 0
    for index in 0..<bytes.count where bytes[index] == 10 || index == bytes.count - 1 {
        guard body(UnsafeRawBufferPointer(rebasing: bytes[lineStart...index])) else { return }
        lineStart = index + 1
    }
}
