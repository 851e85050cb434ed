import Foundation

/// Carries the chunks of a `.stream` upload from the task that produces them to a transport that pulls bytes without
/// waiting (libcurl's read callback): the producer waits while ``limit`` bytes are unread, the transport is told to
/// pause when nothing is there and woken when a chunk arrives.
final class UploadPipe: Sendable {
    /// What a pull found.
    enum Pull: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: pause; `whenReadable` is called once a chunk arrives or the body ends.
        case wait
        /// The body is complete.
        case end
    }

    private struct State: Sendable {
        var chunks: [Data] = []
        var offset = 0
        var buffered = 0
        var isFinished = false
        var failure: NetworkError?
        var isClosed = false
        var readerWaits = false
        var producer: CheckedContinuation<Void, any Error>?
        var pump: Task<Void, Never>?
    }

    /// Unread bytes past which the producer waits.
    static let limit = 256 * 1024

    private let state = Locked(State())
    /// Called (without the lock) when the reader paused and can go on.
    private let whenReadable: @Sendable () -> Void

    init(whenReadable: @escaping @Sendable () -> Void) {
        self.whenReadable = whenReadable
    }

    /// Starts producing `chunks` into the pipe in a task of its own.
    func start(_ chunks: OneShotChunks) {
        let task = Task { [self] in
            do throws(NetworkError) {
                try await chunks.produce { (chunk) throws(NetworkError) in try await self.push(chunk) }
                end(failure: nil)
            } catch {
                end(failure: error)
            }
        }
        let closed = state.withLock { state -> Bool in
            state.pump = task
            return state.isClosed
        }
        if closed { task.cancel() }
    }

    /// Copies the next bytes into `buffer`.
    ///
    /// - Throws: The error the stream failed with.
    func pull(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Pull {
        let (pull, producer) = state.withLock { state -> (Result<Pull, NetworkError>, CheckedContinuation<Void, any Error>?) in
            if let failure = state.failure { return (.failure(failure), nil) }
            var copied = 0
            while copied < buffer.count, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(buffer.count - copied, chunk.count - state.offset)
                chunk.withUnsafeBytes { bytes in
                    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                    (target + copied).copyMemory(from: source + state.offset, byteCount: count)
                }
                copied += count
                state.offset += count
                if state.offset == chunk.count {
                    state.chunks.removeFirst()
                    state.offset = 0
                }
            }
            state.buffered -= copied
            var producer: CheckedContinuation<Void, any Error>?
            if state.buffered < Self.limit {
                producer = state.producer
                state.producer = nil
            }
            if copied > 0 { return (.success(.bytes(copied)), producer) }
            if state.isFinished { return (.success(.end), producer) }
            state.readerWaits = true
            return (.success(.wait), producer)
        }
        producer?.resume()
        return try pull.get()
    }

    /// Stops the pipe: the transfer ended (answered early, cancelled, failed); the producer is cancelled.
    func close() {
        let (producer, pump) = state.withLock { state in
            state.isClosed = true
            state.chunks = []
            state.buffered = 0
            defer { state.producer = nil }
            return (state.producer, state.pump)
        }
        producer?.resume(throwing: CancellationError())
        pump?.cancel()
    }

    private func push(_ chunk: Data) async throws(NetworkError) {
        guard !chunk.isEmpty else { return }
        let wake = state.withLock { state -> Bool? in
            guard !state.isClosed else { return nil }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            defer { state.readerWaits = false }
            return state.readerWaits
        }
        guard let wake else { throw .cancelled }
        if wake { whenReadable() }
        do {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    guard !state.isClosed, state.buffered >= Self.limit else { return true }
                    state.producer = waiter
                    return false
                }
                if ready { waiter.resume() }
            }
        } catch {
            throw .cancelled
        }
        if state.withLock({ $0.isClosed }) { throw .cancelled }
    }

    private func end(failure: NetworkError?) {
        let wake = state.withLock { state -> Bool in
            if let failure { state.failure = failure } else { state.isFinished = true }
            defer { state.readerWaits = false }
            return state.readerWaits && !state.isClosed
        }
        if wake { whenReadable() }
    }
}
