import Foundation
import NetworkLayerSupport

/// The chunks of a `.stream` upload body: they can be taken once; a second attempt to send them is refused.
@_spi(TransportKit) public final class OneShotChunks: Sendable {
    typealias Pump = @Sendable (_ deliver: @Sendable (Data) async throws(NetworkError) -> Void) async throws -> Void

    /// The exact length the stream promised, if any.
    let length: Int64?
    private let pump: Pump
    private let taken = Locked(false)

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64?) where Chunks.Element == Data {
        self.length = length
        pump = { deliver in
            for try await chunk in chunks { try await deliver(chunk) }
        }
    }

    /// The error of a second send of a one-shot body.
    public static let alreadySent = NetworkError.invalidRequest(
        .body,
        reason: "an upload from a stream is sent once, and it was sent already: use .data, .file or .multipart "
            + "for a body that may be sent again")

    /// The error of a one-shot body that URLSession asks for again on its own (Apple platforms: after an
    /// authentication challenge, or when a kept-alive connection closed under the first attempt).
    static let askedAgain = NetworkError.invalidRequest(
        .body,
        reason: "URLSession asked for the body again (a challenge or a connection that closed), and an upload from a "
            + "stream is sent once: use .data, .file or .multipart for a body that may be sent again")

    /// Marks the chunks taken and returns what produces them, or throws if they were taken before.
    func take() throws(NetworkError) -> Pump {
        let wasTaken = taken.withLock { taken in
            defer { taken = true }
            return taken
        }
        if wasTaken { throw Self.alreadySent }
        return pump
    }

    /// Whether the chunks were taken by an attempt.
    public var isTaken: Bool { taken.withLock { $0 } }

    /// Produces every chunk into `deliver`, checking the promised length; an error of the sequence becomes the
    /// body's ``NetworkError``.
    func produce(into deliver: @escaping @Sendable (Data) async throws(NetworkError) -> Void) async throws(NetworkError)
    {
        let pump = try take()
        let length = length
        let count = Locked<Int64>(0)
        do {
            try await pump { (chunk) throws(NetworkError) in
                let total = count.withLock { total in
                    total += Int64(chunk.count)
                    return total
                }
                if let length, total > length { throw Self.lengthMismatch(promised: length, produced: total) }
                try await deliver(chunk)
            }
        } catch let error as NetworkError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .invalidRequest(.body, reason: "the upload stream failed: \(error)", underlyingError: error)
        }
        let total = count.withLock { $0 }
        if let length, total != length { throw Self.lengthMismatch(promised: length, produced: total) }
    }

    /// All chunks in memory.
    func collect(counting progress: ProgressReporter?) async throws(NetworkError) -> Data {
        let whole = Locked(Data())
        try await produce { chunk in
            whole.withLock { $0.append(chunk) }
            progress?.add(chunk.count)
        }
        return whole.withLock { $0 }
    }

    static func lengthMismatch(promised: Int64, produced: Int64) -> NetworkError {
        .invalidRequest(.body, reason: "the upload stream promised \(promised) bytes and produced \(produced)")
    }
}
