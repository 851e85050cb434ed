import Foundation

@testable import NetworkLayerEvents

/// One input: the events a stream of these bytes yields must not depend on where the network split it, and no event
/// may exceed the size cap. Any difference traps, which libFuzzer reports as a crash with the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let limit = 4096
    var whole = ServerSentEventParser(maximumEventSize: limit)
    let wholeEvents = (try? whole.push(bytes)).map { $0 + whole.finish() }
    let cut = bytes.isEmpty ? 0 : Int(bytes[bytes.startIndex]) % (bytes.count + 1)
    var split = ServerSentEventParser(maximumEventSize: limit)
    let splitEvents = (try? split.push(bytes.prefix(cut))).flatMap { first in
        (try? split.push(bytes.dropFirst(cut))).map { first + $0 + split.finish() }
    }
    precondition(wholeEvents == splitEvents || wholeEvents == nil || splitEvents == nil, "chunking changed the events")
    if let wholeEvents, let splitEvents {
        precondition(whole.lastEventID == split.lastEventID, "chunking changed the last event ID")
        precondition(wholeEvents.allSatisfy { $0.data.utf8.count <= limit }, "an event passed the size cap")
        _ = splitEvents
    }
    return 0
}
