import Foundation
import NetworkLayerCore

@testable import NetworkLayerEvents

/// The HTML standard's "interpreting an event stream", written straight from its text on the whole stream decoded
/// first: the events, the last event ID and the reconnection time it gives, to compare the parser with.
private struct Reference {
    var events: [ServerSentEvent] = []
    var lastEventID = ""
    var reconnectionTime: Int?

    init(_ bytes: Data) {
        var text = String(decoding: bytes, as: UTF8.self).unicodeScalars[...]
        if text.first == "\u{FEFF}" { text = text.dropFirst() }  // UTF-8 decode drops one leading BOM
        var data = String.UnicodeScalarView()
        var type = ""
        var idBuffer = ""
        var blockRetry: Int?
        var line = String.UnicodeScalarView()
        var lines: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let scalar = text[index]
            index = text.index(after: index)
            if scalar == "\r" || scalar == "\n" {
                lines.append(String(line))
                line = String.UnicodeScalarView()
                if scalar == "\r", index < text.endIndex, text[index] == "\n" { index = text.index(after: index) }
            } else {
                line.append(scalar)
            }
        }
        // The end of the stream: a line without its end, and the block it is in, are discarded.
        for line in lines {
            if line.isEmpty {
                lastEventID = idBuffer
                if !data.isEmpty {
                    data.removeLast()  // the last LF
                    events.append(
                        ServerSentEvent(
                            id: lastEventID.isEmpty ? nil : lastEventID, type: type.isEmpty ? "message" : type,
                            data: String(data), retry: blockRetry))
                }
                data = String.UnicodeScalarView()
                type = ""
                blockRetry = nil
                continue
            }
            if line.unicodeScalars.first == ":" { continue }
            var field = line
            var value = ""
            if let colon = line.unicodeScalars.firstIndex(of: ":") {
                field = String(line.unicodeScalars[..<colon])
                var rest = line.unicodeScalars[line.unicodeScalars.index(after: colon)...]
                if rest.first == " " { rest = rest.dropFirst() }
                value = String(rest)
            }
            switch field {
            case "event": type = value
            case "data":
                data.append(contentsOf: value.unicodeScalars)
                data.append("\n")
            case "id" where !value.unicodeScalars.contains("\0"): idBuffer = value
            case "retry":
                if !value.isEmpty, value.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let ms = Int(value) {
                    reconnectionTime = ms
                    blockRetry = ms
                }
            default: break
            }
        }
    }
}

/// One input: the events a stream of these bytes yields must not depend on where the network split it, no event may
/// exceed the size cap, and (under the cap) the events, the last event ID and the reconnection time are the ones the
/// standard's algorithm, written straight from its text, gives. Any difference traps, which libFuzzer reports as a
/// crash with the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    // The cap from the input, so that inputs reach it: 64 to 4,144 bytes.
    let limit = 64 + Int(bytes.first ?? 0) * 16
    var whole = ServerSentEventParser(maximumEventSize: limit)
    let wholeEvents = (try? whole.push(bytes)).map { $0 + whole.finish() }
    // The cut from the next two bytes, not the cap's, so that a first push may pass the cap as well as stop short.
    let cut = bytes.dropFirst().prefix(2).reduce(0) { $0 << 8 | Int($1) } % (bytes.count + 1)
    var split = ServerSentEventParser(maximumEventSize: limit)
    let splitEvents = (try? split.push(bytes.prefix(cut))).flatMap { first in
        (try? split.push(bytes.dropFirst(cut))).map { first + $0 + split.finish() }
    }
    // The cap counts the event's raw bytes and the line being read, however the stream is chunked.
    precondition((wholeEvents == nil) == (splitEvents == nil), "chunking changed whether the cap was passed")
    precondition(wholeEvents == splitEvents, "chunking changed the events")
    if let wholeEvents {
        precondition(whole.lastEventID == split.lastEventID, "chunking changed the last event ID")
        // Each raw byte decodes to at most 3 (an invalid one becomes U+FFFD).
        precondition(wholeEvents.allSatisfy { $0.data.utf8.count <= 3 * limit }, "an event passed the size cap")
        let reference = Reference(bytes)
        precondition(wholeEvents == reference.events, "the events differ from the standard's algorithm")
        precondition(whole.lastEventID == reference.lastEventID, "the last event ID differs from the standard's")
        precondition(whole.reconnectionTime == reference.reconnectionTime, "the reconnection time differs")
    }
    return 0
}
