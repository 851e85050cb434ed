import Foundation

/// The state of one streamed body between the transport that produces it and the one consumer that reads it: a value,
/// so that every decision (hand over a chunk, pause the producer, resume it, end) is tested without I/O.
///
/// Backpressure works with two watermarks, as in async-http-client: once `highWatermark` bytes wait unread, the
/// buffer is full and the producer is told to pause; a producer that can keep its next chunk (libcurl) asks
/// ``isFull`` first and keeps it, one that cannot (URLSession has delivered it already) appends it anyway. Once the
/// consumer has read the buffer down to `lowWatermark`, the producer is told to resume. Past `hardLimit` unread bytes
/// the body fails instead of growing.
package struct BodyBuffer<Waiter> {
    /// A consumer to resume once the lock is released.
    enum Wake {
        case chunk(Waiter, Data)
        case end(Waiter)
        case failure(Waiter, NetworkError)
    }

    /// How the body ended.
    enum Ending {
        /// The producer delivered all of it.
        case finished
        /// The producer failed (a drop, a timeout): what it delivered before is still read, then the error.
        case failed(NetworkError)
        /// The reader went away, or the body was stopped: unread chunks are dropped.
        case abandoned(NetworkError)
    }

    /// What the consumer's request for the next chunk led to.
    enum Read {
        /// A chunk; `resumeProducer` when the producer should be told to go on.
        case chunk(Data, resumeProducer: Bool)
        /// The body ended normally.
        case end
        /// The body failed.
        case failure(NetworkError)
        /// Nothing yet: the consumer was recorded as the waiter.
        case wait
    }

    let highWatermark: Int
    let lowWatermark: Int
    /// The most unread bytes a producer that cannot pause may leave; past it the body fails.
    let hardLimit: Int

    private var chunks: [Data] = []
    private var head = 0
    private(set) var bufferedBytes = 0
    private(set) var deliveredBytes = 0
    private(set) var ending: Ending?
    /// The consumer waiting for the next chunk; only while the buffer is empty.
    private(set) var waiter: Waiter?
    /// Whether the producer was told to pause and not yet to resume.
    private(set) var producerPaused = false

    init(highWatermark: Int, lowWatermark: Int, hardLimit: Int) {
        self.highWatermark = highWatermark
        self.lowWatermark = min(lowWatermark, highWatermark)
        self.hardLimit = max(hardLimit, highWatermark)
    }

    var hasEnded: Bool { ending != nil }

    /// Whether a producer that can keep its next chunk (libcurl's pause) should keep it and pause: `highWatermark`
    /// bytes wait unread. Only the producer adds bytes, so a `false` holds until its next append.
    var isFull: Bool { bufferedBytes >= highWatermark }

    /// A producer that cannot keep a chunk appends it; `pause` says it should stop reading for now.
    mutating func append(_ chunk: Data) -> (pause: Bool, wake: Wake?) {
        guard ending == nil else { return (false, nil) }
        if bufferedBytes + chunk.count > hardLimit {
            return (false, end(.abandoned(Self.overrun(hardLimit))))
        }
        let wake = take(chunk)
        let pause = !producerPaused && bufferedBytes >= highWatermark
        if pause { producerPaused = true }
        return (pause, wake)
    }

    /// Hands the chunk to a waiting consumer, or keeps it.
    private mutating func take(_ chunk: Data) -> Wake? {
        guard !chunk.isEmpty else { return nil }
        if let waiter {
            self.waiter = nil
            deliveredBytes += chunk.count
            return .chunk(waiter, chunk)
        }
        chunks.append(chunk)
        bufferedBytes += chunk.count
        return nil
    }

    /// The consumer asks for the next chunk; `waiter` is recorded if it must wait.
    mutating func read(waiter: Waiter) -> Read {
        if let ready = readIfReady() { return ready }
        self.waiter = waiter
        return .wait
    }

    /// The next chunk or the end, if the consumer need not wait; `nil` (and nothing changes) when it must.
    mutating func readIfReady() -> Read? {
        if head < chunks.count {
            // Chunks are handed over one by one, never joined: a chunk that waits is returned without a wait, and a
            // join would copy it again (measured: slower, with page faults for the new buffer).
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            bufferedBytes -= chunk.count
            deliveredBytes += chunk.count
            let resume = producerPaused && bufferedBytes <= lowWatermark && ending == nil
            if resume { producerPaused = false }
            return .chunk(chunk, resumeProducer: resume)
        }
        switch ending {
        case .finished: return .end
        case .failed(let error), .abandoned(let error): return .failure(error)
        case nil: return nil
        }
    }

    /// Ends the body (the producer finished or failed, the reader went away); an abandoned body drops its unread
    /// chunks. Returns the waiting consumer to tell, if any (it waits only while nothing is unread).
    mutating func end(_ ending: Ending) -> Wake? {
        guard self.ending == nil else { return nil }
        self.ending = ending
        if case .abandoned = ending {
            chunks.removeAll()
            head = 0
            bufferedBytes = 0
        }
        guard let waiter else { return nil }
        self.waiter = nil
        switch ending {
        case .finished: return .end(waiter)
        case .failed(let error), .abandoned(let error): return .failure(waiter, error)
        }
    }

    /// The error of a consumer that fell `limit` bytes behind a producer that cannot pause.
    static func overrun(_ limit: Int) -> NetworkError {
        .transport(
            .responseTooLarge,
            underlyingError: URLError(
                .dataLengthExceedsMaximum,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "the reader fell \(limit) bytes behind a transport that cannot pause its transfer; read "
                        + "faster, or use CurlTransport"
                ]))
    }
}

extension BodyBuffer: Sendable where Waiter: Sendable {}
extension BodyBuffer.Wake: Sendable where Waiter: Sendable {}
