import Foundation

/// Hands the chunks of a `.stream` upload from its producer, which runs in a task, to a transport that reads the
/// body synchronously on a thread of its own (FoundationNetworking's input stream), holding at most about
/// ``capacity`` bytes: the producer waits while the buffer is full, the reader while it is empty.
///
/// The reader blocks, so only a transport that reads on a thread nobody else waits for should use it; ``close()``
/// (the upload ended: a response, an error, a cancellation) wakes both sides for good.
///
/// `@unchecked Sendable` is sound: the only mutable state is `state`, private and touched only between
/// `condition.lock()` and `condition.unlock()` (in `withState`, and in `read`, which also waits on it); the class is
/// final.
final class ChunkPipe: ChunkReader, @unchecked Sendable {
    /// What the buffer holds at most before the producer waits (one chunk more than this, at worst).
    static let capacity = 256 * 1024

    private struct State {
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
            if added { return }
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
    }

    /// Fails the body: the reader's next read throws `error`.
    func fail(_ error: NetworkError) {
        let writer = withState { state in
            state.failure = state.failure ?? error
            defer { state.waitingWriter = nil }
            return state.waitingWriter
        }
        writer?.resume()
    }

    /// Ends the pipe for both sides: a waiting or later write throws, a read throws ``NetworkError/cancelled``.
    func close() {
        let writer = withState { state in
            state.isClosed = true
            defer { state.waitingWriter = nil }
            return state.waitingWriter
        }
        writer?.resume()
    }

    /// Copies the next bytes into `buffer`, waiting until some have come; 0 at the end of the body.
    ///
    /// - Throws: the body's failure, or ``NetworkError/cancelled`` once the pipe is closed.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        condition.lock()
        while state.chunks.isEmpty && !state.isFinished && state.failure == nil && !state.isClosed {
            condition.wait()
        }
        defer { condition.unlock() }
        if state.isClosed { throw .cancelled }
        if let failure = state.failure { throw failure }
        guard let first = state.chunks.first else { return 0 }
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
