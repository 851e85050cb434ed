import Foundation
import NetworkLayerSupport

/// Hands the chunks of a `.stream` upload from its producer, which runs in a task (``start(_:)``), to a transport,
/// holding at most about ``capacity`` bytes: the producer waits while the buffer is full.
///
/// A transport reads in one of two ways. ``read(into:)`` waits while the buffer is empty, for a transport that reads
/// on a thread nobody else waits for (FoundationNetworking's input stream). ``pull(into:)`` never waits: it answers
/// ``Pull/wait`` and the pipe calls `whenReadable` once there is something (libcurl's read callback pauses the
/// transfer meanwhile). ``close()`` (the upload ended: a response, an error, a cancellation) wakes both sides for
/// good and cancels the producer.
///
/// `@unchecked Sendable` is sound: the mutable state is `state`, private and touched only between
/// `condition.lock()` and `condition.unlock()` (in `withState`, and in `read`, which also waits on it), and `pump`,
/// which is `Locked`; the class is final.
@_spi(TransportKit) public final class ChunkPipe: ChunkReader, @unchecked Sendable {
    /// What the buffer holds at most before the producer waits (one chunk more than this, at worst).
    static let capacity = 256 * 1024

    /// What a ``pull(into:)`` found.
    public enum Pull: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: `whenReadable` is called once a chunk arrives or the body ends.
        case wait
        /// The body is complete.
        case end
    }

    private struct State {
        var readerWaits = false
        var chunks: [Data] = []
        var offset = 0
        var buffered = 0
        var isFinished = false
        var failure: NetworkError?
        var isClosed = false
        var waitingWriter: CheckedContinuation<Void, Never>?
    }

    private let condition = NSCondition()
    private var state = State()
    private let pump = Locked<Task<Void, Never>?>(nil)
    /// Called, without the lock, when a reader that pulled in vain can go on.
    private let whenReadable: (@Sendable () -> Void)?

    /// A pipe; `whenReadable` is for a transport that uses ``pull(into:)``.
    public init(whenReadable: (@Sendable () -> Void)? = nil) {
        self.whenReadable = whenReadable
    }

    /// Starts the task that moves `chunks` into the pipe; false if it was started already (a one-shot body is read
    /// once).
    public func start(_ chunks: OneShotChunks) -> Bool {
        let started = pump.withLock { pump -> Bool in
            guard pump == nil else { return false }
            pump = Task {
                do throws(NetworkError) {
                    try await chunks.produce { chunk throws(NetworkError) in try await self.write(chunk) }
                    self.finish()
                } catch {
                    self.fail(error)
                }
            }
            return true
        }
        if started, withState({ $0.isClosed }) { pump.withLock { $0?.cancel() } }
        return started
    }

    /// Tells a reader that pulled in vain to come back, once.
    private func wakeReader() {
        let wake = withState { state in
            defer { state.readerWaits = false }
            return state.readerWaits && !state.isClosed
        }
        if wake { whenReadable?() }
    }

    private func withState<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Adds a chunk once there is room; throws ``NetworkError/cancelled`` once the pipe is closed.
    func write(_ chunk: Data) async throws(NetworkError) {
        guard !chunk.isEmpty else { return }
        while true {
            let added = try withState { (state) throws(NetworkError) -> Bool in
                if state.isClosed { throw .cancelled }
                guard state.buffered < Self.capacity else { return false }
                state.chunks.append(chunk)
                state.buffered += chunk.count
                return true
            }
            if added {
                wakeReader()
                return
            }
            await withCheckedContinuation { continuation in
                let resumeNow = withState { state in
                    guard !state.isClosed, state.failure == nil, state.buffered >= Self.capacity else { return true }
                    state.waitingWriter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Marks the end of the body: the reader gets 0 once it has read everything.
    func finish() {
        withState { $0.isFinished = true }
        wakeReader()
    }

    /// Fails the body: the reader's next read throws `error`.
    func fail(_ error: NetworkError) {
        let writer = withState { state in
            state.failure = state.failure ?? error
            defer { state.waitingWriter = nil }
            return state.waitingWriter
        }
        writer?.resume()
        wakeReader()
    }

    /// Ends the pipe for both sides: a waiting or later write throws, a read throws ``NetworkError/cancelled``.
    public func close() {
        let writer = withState { state in
            state.isClosed = true
            state.chunks = []
            state.buffered = 0
            defer { state.waitingWriter = nil }
            return state.waitingWriter
        }
        writer?.resume()
        pump.withLock { $0?.cancel() }
    }

    /// Copies the next bytes into `buffer` without waiting.
    ///
    /// - Throws: the body's failure, or ``NetworkError/cancelled`` once the pipe is closed.
    public func pull(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Pull {
        try withState { (state) throws(NetworkError) -> Pull in
            if state.isClosed { throw .cancelled }
            if let failure = state.failure { throw failure }
            guard !state.chunks.isEmpty else {
                if state.isFinished { return .end }
                state.readerWaits = true
                return .wait
            }
            return .bytes(Self.take(into: buffer, from: &state))
        }
    }

    /// Copies the next bytes into `buffer`, waiting until some have come; 0 at the end of the body.
    ///
    /// - Throws: the body's failure, or ``NetworkError/cancelled`` once the pipe is closed.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        condition.lock()
        while state.chunks.isEmpty && !state.isFinished && state.failure == nil && !state.isClosed {
            condition.wait()
        }
        defer { condition.unlock() }
        if state.isClosed { throw .cancelled }
        if let failure = state.failure { throw failure }
        guard !state.chunks.isEmpty else { return 0 }
        return Self.take(into: buffer, from: &state)
    }

    /// Copies from the first chunk into `buffer` and lets a waiting producer go on once there is room.
    private static func take(into buffer: UnsafeMutableRawBufferPointer, from state: inout State) -> Int {
        let first = state.chunks[0]
        let count = min(buffer.count, first.count - state.offset)
        first.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
            target.copyMemory(from: source + state.offset, byteCount: count)
        }
        state.offset += count
        state.buffered -= count
        if state.offset == first.count {
            state.chunks.removeFirst()
            state.offset = 0
        }
        if state.buffered < Self.capacity, let writer = state.waitingWriter {
            state.waitingWriter = nil
            writer.resume()
        }
        return count
    }
}
