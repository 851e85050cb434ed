@testable import NetworkLayerWebSocketFraming

/// One input as compressed messages from a server (permessage-deflate), cut where the first byte says: each one
/// inflates to at most the limit or fails with 1002 or 1009, and never crashes or touches memory it does not own (the
/// inflater is zlib, driven through our C shim).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: start, count: count)
    var agreement = PerMessageDeflate()
    agreement.serverNoContextTakeover = input[0] & 0x80 != 0
    let cut = Int(input[0] & 0x7F) + 1
    guard let inflater = MessageInflater(agreement) else { fatalError("zlib did not load") }
    let limit = 4096
    var offset = 1
    while offset < count {
        let message = Array(input[offset..<min(count, offset + cut)])
        offset += cut
        do {
            let output = try inflater.decompress(message, limit: limit)
            precondition(output.count <= limit, "a message inflated past its limit")
        } catch {
            precondition(
                [1002, 1009].contains(error.closeCode), "an inflation failure with the close code \(error.closeCode)")
            return 0
        }
    }
    return 0
}
