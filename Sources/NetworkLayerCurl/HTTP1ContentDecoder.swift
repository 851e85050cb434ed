import CZlib
import Foundation

/// A response body's content coding undone as its bytes arrive, for CurlTransport's own HTTP/1.1 engine: `gzip`
/// (and `x-gzip`) and `deflate`, which is a zlib stream by the standard and raw DEFLATE from some servers (its first
/// two bytes tell which, as libcurl tells). The decoded bytes count against the size limit as they come, so that a
/// compression bomb ends at the limit, never past it.
final class HTTP1ContentDecoder {
    /// Why a coded body cannot be read.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// A coding other than gzip and deflate (or more than one).
        case unsupported(String)
        /// The bytes are not what the coding says, or the body ended inside the coded stream.
        case malformed
        /// The decoded body passed the limit.
        case tooLarge
        /// zlib could not be loaded.
        case unavailable

        var description: String {
            switch self {
            case .unsupported(let coding): "the content coding \"\(coding)\" is not supported"
            case .malformed: "the coded body is malformed or cut short"
            case .tooLarge: "the decoded body exceeds the limit"
            case .unavailable: "zlib could not be loaded to decode the body"
            }
        }
    }

    private let limit: Int
    private let isDeflate: Bool
    private var stream: UnsafeMutableRawPointer?
    /// A deflate body's first byte, kept until the second tells a zlib stream from raw DEFLATE.
    private var firstByte: UInt8?
    private var ended = false
    private var receivedAnything = false
    private var output = [UInt8](repeating: 0, count: 16 * 1024)

    /// The decoder for a body whose `Content-Encoding` is `coding`, or nil for a body that is not coded (no field,
    /// or `identity`).
    static func make(for coding: String?, limit: Int) throws(Failure) -> HTTP1ContentDecoder? {
        guard let coding = coding?.trimmingCharacters(in: .whitespaces).lowercased(), !coding.isEmpty,
            coding != "identity"
        else { return nil }
        switch coding {
        case "gzip", "x-gzip": return try HTTP1ContentDecoder(deflate: false, limit: limit)
        case "deflate": return try HTTP1ContentDecoder(deflate: true, limit: limit)
        default: throw .unsupported(coding)
        }
    }

    private init(deflate: Bool, limit: Int) throws(Failure) {
        self.limit = limit
        isDeflate = deflate
        guard nl_zlib_load() == 1 else { throw .unavailable }
        if !deflate { stream = nl_zlib_inflater_wrapped() }
        if !deflate && stream == nil { throw .unavailable }
    }

    deinit {
        if let stream { nl_zlib_free(stream, 0) }
    }

    /// Decodes the next coded bytes onto `body`. A byte after the end of the coded stream (junk, or a second gzip
    /// member) is refused, as libcurl refuses it.
    func decode(_ input: UnsafeRawBufferPointer, into body: inout Data) throws(Failure) {
        guard !input.isEmpty else { return }
        guard !ended else { throw .malformed }
        receivedAnything = true
        if stream == nil {
            guard let first = firstByte else {
                firstByte = input[0]
                try decode(UnsafeRawBufferPointer(rebasing: input[1...]), into: &body)
                return
            }
            // A zlib header: the DEFLATE method in the low bits, and the two bytes a multiple of 31.
            let wrapped = first & 0x0F == 8 && (Int(first) << 8 | Int(input[0])) % 31 == 0
            stream = wrapped ? nl_zlib_inflater_wrapped() : nl_zlib_inflater()
            guard stream != nil else { throw .unavailable }
            let outcome = [first].withUnsafeBytes { first in
                Result { () throws(Failure) in try inflate(first, into: &body) }
            }
            try outcome.get()
        }
        try inflate(input, into: &body)
    }

    /// Checks that the coded stream ended with the body: a body cut inside it is malformed.
    func finish() throws(Failure) {
        guard ended || !receivedAnything else { throw .malformed }
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into body: inout Data) throws(Failure) {
        var offset = 0
        while !ended {
            var inputLeft: UInt32 = 0
            var outputLeft: UInt32 = 0
            let available = input.count - offset
            let code = output.withUnsafeMutableBufferPointer { output in
                nl_zlib_step(
                    stream, 0, input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset },
                    UInt32(available), output.baseAddress, UInt32(output.count), &inputLeft, &outputLeft, 0)
            }
            let consumed = available - Int(inputLeft)
            let produced = output.count - Int(outputLeft)
            offset += consumed
            if produced > 0 {
                guard body.count + produced <= limit else { throw .tooLarge }
                body.append(contentsOf: output[..<produced])
            }
            switch code {
            case 1:  // Z_STREAM_END
                ended = true
                if offset < input.count { throw .malformed }
            case 0, -5:  // Z_OK, or Z_BUF_ERROR: no progress without more input or room
                // A full output may hold more; otherwise everything given was taken.
                if outputLeft != 0 && (offset == input.count || consumed == 0) { return }
            default: throw .malformed
            }
        }
    }
}
