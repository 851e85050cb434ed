import Foundation

@testable import NetworkLayerCurl

/// One input, cut into lines at each LF as libcurl's header callback passes them: the block takes each line or
/// refuses it with a typed violation that says why, never takes more than its size limit, and reads only a
/// three-digit status.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let limit = 8192
    var block = HeaderBlock(limit: limit)
    var lineStart = 0
    var taken = 0
    for index in 0..<count where bytes[index] == 10 || index == count - 1 {
        let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart...index])
        lineStart = index + 1
        do {
            try block.take(line)
            taken += line.count
        } catch {
            precondition(!error.description.isEmpty, "a refusal without a reason")
            return 0
        }
    }
    precondition(taken <= limit, "the block took more than its limit")
    if let status = block.statusCode { precondition((100...999).contains(status), "a status of \(status)") }
    _ = block.value(ofField: "Content-Length")
    _ = block.value(ofField: "content-type")
    return 0
}
