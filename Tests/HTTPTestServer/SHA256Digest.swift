#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SHA-256 (FIPS 180-4) computed as bytes arrive, so that the server can hash a request body it does not keep.
///
/// The package's own SHA-256 is internal to NetworkLayer and takes the whole message at once; the test server
/// depends on nothing (the benchmark links it too), so it has this small incremental one. Tests run unoptimized,
/// where it hashes about 5 MB/s: with OpenSSL's libcrypto on the system (loaded at run time, as the TLS test server
/// loads it), that does the work instead, at hundreds of MB/s.
struct SHA256Digest {
    private let openSSL = OpenSSLContext.make()
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending = [UInt8]()
    private var length: UInt64 = 0
    private var words = [UInt32](repeating: 0, count: 64)

    private static let constants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Adds bytes to the message.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if let openSSL { return openSSL.update(bytes) }
        length &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(64 - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress(blocks: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / 64 * 64
        if whole > 0 { compress(blocks: UnsafeRawBufferPointer(rebasing: rest.prefix(whole))) }
        pending.append(contentsOf: rest.dropFirst(whole))
    }

    /// The digest of everything added, as 64 lowercase hexadecimal digits.
    func hex() -> String {
        if let openSSL { return openSSL.hex() }
        var copy = self
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        while (copy.pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { copy.update($0) }
        let values = [
            copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5, copy.state.6,
            copy.state.7,
        ]
        return values.map { value in
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 8 - text.count) + text
        }.joined()
    }

    private mutating func compress(blocks: UnsafeRawBufferPointer) {
        Self.constants.withUnsafeBufferPointer { k in
            words.withUnsafeMutableBufferPointer { w in
                var offset = 0
                while offset < blocks.count {
                    for index in 0..<16 {
                        w[index] = UInt32(
                            bigEndian: blocks.loadUnaligned(fromByteOffset: offset + index * 4, as: UInt32.self))
                    }
                    for index in 16..<64 {
                        let a = w[index - 15]
                        let b = w[index - 2]
                        let small0 = (a >> 7 | a << 25) ^ (a >> 18 | a << 14) ^ (a >> 3)
                        let small1 = (b >> 17 | b << 15) ^ (b >> 19 | b << 13) ^ (b >> 10)
                        w[index] = w[index - 16] &+ small0 &+ w[index - 7] &+ small1
                    }
                    var (a, b, c, d, e, f, g, h) = state
                    for index in 0..<64 {
                        let big1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                        let choice = (e & f) ^ (~e & g)
                        let temp1 = h &+ big1 &+ choice &+ k[index] &+ w[index]
                        let big0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temp2 = big0 &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
                    }
                    state = (
                        state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f,
                        state.6 &+ g, state.7 &+ h
                    )
                    offset += 64
                }
            }
        }
    }
}

/// A `SHA256_CTX` of libcrypto, when it can be loaded; used by one digest, which never copies it before `hex()`.
private final class OpenSSLContext: @unchecked Sendable {
    // @unchecked: the context is touched only by the one connection thread that owns the digest.
    private typealias Initialize = @convention(c) (UnsafeMutableRawPointer) -> Int32
    private typealias Update = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer?, Int) -> Int32
    private typealias Final = @convention(c) (UnsafeMutablePointer<UInt8>, UnsafeMutableRawPointer) -> Int32

    private struct Functions: @unchecked Sendable {
        let initialize: Initialize
        let update: Update
        let final: Final
    }

    private static let functions: Functions? = {
        #if canImport(Glibc)
            let names = ["libcrypto.so.3", "libcrypto.so.1.1"]
        #else
            let names: [String] = []
        #endif
        guard let library = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first,
            let initialize = dlsym(library, "SHA256_Init"), let update = dlsym(library, "SHA256_Update"),
            let final = dlsym(library, "SHA256_Final")
        else { return nil }
        return Functions(
            initialize: unsafeBitCast(initialize, to: Initialize.self), update: unsafeBitCast(update, to: Update.self),
            final: unsafeBitCast(final, to: Final.self))
    }()

    private let functions: Functions
    // SHA256_CTX is 112 bytes; room to spare.
    private let context = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)

    private init(_ functions: Functions) {
        self.functions = functions
        _ = functions.initialize(context)
    }

    static func make() -> OpenSSLContext? {
        functions.map(OpenSSLContext.init)
    }

    deinit {
        context.deallocate()
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        _ = functions.update(context, bytes.baseAddress, bytes.count)
    }

    /// Finishes the digest; nothing may be added afterwards.
    func hex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = functions.final(&digest, context)
        return digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
