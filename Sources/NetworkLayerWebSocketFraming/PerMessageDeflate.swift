import CZlib

/// permessage-deflate (RFC 7692) as the server accepted it: whether each side keeps its compression context from
/// message to message, and the window each side compresses with.
package struct PerMessageDeflate: Sendable, Equatable {
    /// The server starts each message with a fresh context (so the client's inflater resets after each).
    package var serverNoContextTakeover = false
    /// The client must start each message with a fresh context.
    package var clientNoContextTakeover = false
    /// The largest window the server compresses with, in bits.
    package var serverMaxWindowBits = 15
    /// The largest window the client may compress with, in bits.
    package var clientMaxWindowBits = 15

    /// The offer the client sends: permessage-deflate, with any window for the client's side.
    package static let offer = "permessage-deflate; client_max_window_bits"

    /// Whether zlib could be loaded, so that the offer can be made.
    package static var isAvailable: Bool { nl_zlib_load() == 1 }

    package init() {}

    /// Reads the server's answer to ``offer`` (RFC 7692 §7.1): its parameters, each once, with valid values.
    ///
    /// - Throws: ``WebSocketHandshakeFailure`` for an extension other than permessage-deflate, an unknown or
    ///   repeated parameter, a window outside 8–15 bits, or a client window of 8 bits (zlib compresses with 9 at
    ///   least).
    package init(accepting item: String) throws(WebSocketHandshakeFailure) {
        let parts = item.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        guard parts.first?.lowercased() == "permessage-deflate" else {
            throw WebSocketHandshakeFailure(reason: "the extension \"\(item)\" is not permessage-deflate")
        }
        var seen = Set<String>()
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.trimmed(pair[0]).lowercased()
            var value = pair.count > 1 ? Self.trimmed(pair[1]) : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = String(quoted.dropFirst().dropLast())
            }
            guard seen.insert(name).inserted else {
                throw WebSocketHandshakeFailure(reason: "permessage-deflate's \(name) appears twice")
            }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    throw WebSocketHandshakeFailure(reason: "permessage-deflate's \(name) has a value")
                }
                if name == "server_no_context_takeover" {
                    serverNoContextTakeover = true
                } else {
                    clientNoContextTakeover = true
                }
            case "server_max_window_bits", "client_max_window_bits":
                guard let value, value.allSatisfy(\.isASCII), let bits = Int(value), (8...15).contains(bits) else {
                    throw WebSocketHandshakeFailure(reason: "permessage-deflate's \(name) is not 8 to 15")
                }
                if name == "server_max_window_bits" {
                    serverMaxWindowBits = bits
                } else {
                    guard bits >= 9 else {
                        throw WebSocketHandshakeFailure(reason: "client_max_window_bits=8, which zlib cannot keep to")
                    }
                    clientMaxWindowBits = bits
                }
            default:
                throw WebSocketHandshakeFailure(reason: "permessage-deflate has the unknown parameter \(name)")
            }
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// Compresses a client's messages: raw DEFLATE ending in a sync flush, without its last four bytes (00 00 FF FF).
package final class MessageDeflater {
    private let stream: UnsafeMutableRawPointer
    private let resetsEachMessage: Bool

    /// A compressor for `agreement`, or `nil` when zlib is not available.
    package init?(_ agreement: PerMessageDeflate) {
        guard let stream = nl_zlib_deflater(Int32(agreement.clientMaxWindowBits)) else { return nil }
        self.stream = stream
        resetsEachMessage = agreement.clientNoContextTakeover
    }

    deinit { nl_zlib_free(stream, 1) }

    /// The compressed payload of one message.
    package func compress(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(64, min(bytes.count / 2 + 64, 64 * 1024)))
        bytes.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var inputLeft: UInt32 = 0
                var outputLeft: UInt32 = 0
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    let inputCount = input.count - offset
                    _ = nl_zlib_step(
                        stream, 1, input.baseAddress.map { $0 + offset }, UInt32(inputCount), out.baseAddress,
                        UInt32(out.count), &inputLeft, &outputLeft, 2)
                    offset = input.count - Int(inputLeft)
                    return out.count - Int(outputLeft)
                }
                output.append(contentsOf: chunk[0..<produced])
                // Done when all input went in and the flush fit in the room left.
                if inputLeft == 0, outputLeft > 0 { break }
            }
        }
        if output.count >= 4, Array(output.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF] { output.removeLast(4) }
        if resetsEachMessage { _ = nl_zlib_reset(stream, 1) }
        return output
    }
}

/// Decompresses a server's messages, never to more than a limit: a compression bomb fails as it passes the limit.
package final class MessageInflater {
    private let stream: UnsafeMutableRawPointer
    private let resetsEachMessage: Bool

    /// A decompressor for `agreement`, or `nil` when zlib is not available.
    package init?(_ agreement: PerMessageDeflate) {
        guard let stream = nl_zlib_inflater() else { return nil }
        self.stream = stream
        resetsEachMessage = agreement.serverNoContextTakeover
    }

    deinit { nl_zlib_free(stream, 0) }

    /// The message `payload` compresses, of at most `limit` bytes.
    ///
    /// - Throws: ``WebSocketViolation``: 1009 as soon as the output passes `limit`; 1002 for data that is not raw
    ///   DEFLATE.
    package func decompress(_ payload: [UInt8], limit: Int) throws(WebSocketViolation) -> [UInt8] {
        let input = payload + [0x00, 0x00, 0xFF, 0xFF]
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(input.count * 4, 1024), 256 * 1024, limit + 1))
        var offset = 0
        var failure: WebSocketViolation?
        input.withUnsafeBufferPointer { input in
            while failure == nil {
                var inputLeft: UInt32 = 0
                var outputLeft: UInt32 = 0
                var code: Int32 = 0
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    code = nl_zlib_step(
                        stream, 0, input.baseAddress.map { $0 + offset }, UInt32(input.count - offset),
                        out.baseAddress, UInt32(out.count), &inputLeft, &outputLeft, 2)
                    offset = input.count - Int(inputLeft)
                    return out.count - Int(outputLeft)
                }
                if code < 0, code != -5 {
                    failure = .protocolError("a compressed message that is not raw DEFLATE (zlib code \(code))")
                    break
                }
                guard produced <= limit - output.count else {
                    failure = .tooBig("a compressed message that inflates past the limit of \(limit) bytes")
                    break
                }
                output.append(contentsOf: chunk[0..<produced])
                if code == 1 {
                    // The server ended its stream (a final block): the next message starts a new one.
                    _ = nl_zlib_reset(stream, 0)
                    if inputLeft > 4 { failure = .protocolError("data after the end of a compressed stream") }
                    break
                }
                if inputLeft == 0, outputLeft > 0 { break }
                if produced == 0, code == -5 { break }
            }
        }
        if let failure { throw failure }
        if resetsEachMessage { _ = nl_zlib_reset(stream, 0) }
        return output
    }
}
