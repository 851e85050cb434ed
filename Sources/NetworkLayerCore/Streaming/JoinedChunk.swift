import Foundation
import NetworkLayerSupport

/// Bytes joined from several reads into one chunk for a streamed body's reader, handed over as `Data` without a
/// copy, in a buffer that goes back to its ``ChunkBuffers`` when the reader drops the chunk.
///
/// The buffers are reused because a fresh buffer of this size costs page faults: glibc serves it from newly mapped
/// or trimmed memory (measured with `Data(capacity:)` and with `malloc`: 37,000 to 78,000 page faults a GiB).
@_spi(TransportKit) public struct JoinedChunk: ~Copyable {
    private let buffers: ChunkBuffers
    private var bytes: UnsafeMutableRawPointer?
    /// How many bytes the chunk holds so far.
    public private(set) var count = 0

    /// An empty chunk whose bytes come from `buffers`.
    public init(buffers: ChunkBuffers) {
        self.buffers = buffers
    }

    deinit {
        if let bytes { buffers.recycle(bytes) }
    }

    /// The most bytes one chunk holds.
    public var capacity: Int { buffers.capacity }

    /// Appends `more`, which fits: the caller takes the chunk before it would overflow ``capacity``. False when no
    /// memory could be had for the chunk (nothing is appended).
    public mutating func append(_ more: UnsafeRawBufferPointer) -> Bool {
        guard let source = more.baseAddress, !more.isEmpty else { return true }
        guard count + more.count <= buffers.capacity, let target = bytes ?? buffers.take() else { return false }
        bytes = target
        (target + count).copyMemory(from: source, byteCount: more.count)
        count += more.count
        return true
    }

    /// The joined bytes as `Data` that owns them, or `nil` when there are none; the next append starts a new chunk.
    public mutating func take() -> Data? {
        guard let taken = bytes, count > 0 else { return nil }
        defer {
            bytes = nil
            count = 0
        }
        let buffers = buffers
        return Data(bytesNoCopy: taken, count: count, deallocator: .custom { pointer, _ in buffers.recycle(pointer) })
    }
}

/// The buffers of one transport's joined chunks: a few kept for reuse, the rest freed.
@_spi(TransportKit) public final class ChunkBuffers: Sendable {
    /// The size of each buffer.
    let capacity: Int
    /// How many free buffers are kept: enough for the chunks one reader holds at a time and a few transfers.
    private let keep: Int
    /// Free buffers, as addresses (a raw pointer is not `Sendable`; an address is).
    private let free = Locked<[UInt]>([])

    /// Buffers of `capacity` bytes each, keeping up to `keep` freed ones for reuse.
    public init(capacity: Int, keep: Int = 8) {
        self.capacity = capacity
        self.keep = keep
    }

    deinit {
        for address in free.withLock({ $0 }) { Foundation.free(UnsafeMutableRawPointer(bitPattern: address)) }
    }

    /// A buffer of ``capacity`` bytes, reused if one is free; `nil` when there is no memory.
    func take() -> UnsafeMutableRawPointer? {
        if let address = free.withLock({ $0.popLast() }), let buffer = UnsafeMutableRawPointer(bitPattern: address) {
            return buffer
        }
        return malloc(capacity)
    }

    /// Takes back a buffer from ``take()``.
    func recycle(_ buffer: UnsafeMutableRawPointer) {
        let kept = free.withLock { free -> Bool in
            guard free.count < keep else { return false }
            free.append(UInt(bitPattern: buffer))
            return true
        }
        if !kept { Foundation.free(buffer) }
    }
}
