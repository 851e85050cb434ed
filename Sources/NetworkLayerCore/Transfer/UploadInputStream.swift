import Foundation

/// The input stream a URLSession reads a streamed upload body from: it reads a ``ChunkReader`` (a multipart form's,
/// or the ``ChunkPipe`` of a `.stream` body) on the session's thread.
///
/// URLSession reads it synchronously and takes a read of 0 bytes, or `hasBytesAvailable` turning false, as the end
/// of the body (FoundationNetworking has no "later" for a stream), so a read waits until bytes come.
///
/// URLSession reads a body stream from one thread at a time, so the reader is touched by one `read` at a time; the
/// stream's state (`status`, `error`), which other threads may ask for, is guarded by `lock`.
final class UploadInputStream: InputStream {
    private let reader: any ChunkReader
    private let failed: @Sendable (NetworkError) -> Void
    private let lock = NSLock()
    private var status = Stream.Status.notOpen
    private var error: NetworkError?

    /// A stream over `reader`; `failed` hears the error that ends it (a file that shrank, a stream that threw).
    init(_ reader: any ChunkReader, failed: @escaping @Sendable (NetworkError) -> Void) {
        self.reader = reader
        self.failed = failed
        super.init(data: Data())
    }

    override func open() {
        lock.withLock { if status == .notOpen { status = .open } }
    }

    override func close() {
        lock.withLock { status = .closed }
    }

    override var streamStatus: Stream.Status {
        lock.withLock { status }
    }

    override var streamError: (any Error)? {
        lock.withLock { error }
    }

    override var hasBytesAvailable: Bool {
        lock.withLock { status == .open || status == .reading }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let current = lock.withLock { status }
        guard current == .open || current == .reading else { return current == .atEnd ? 0 : -1 }
        lock.withLock { status = .reading }
        // The read may wait for a stream's producer: outside the lock, so that asking for the status never waits.
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: len))
            lock.withLock { if status == .reading { status = count == 0 ? .atEnd : .open } }
            return count
        } catch {
            lock.withLock {
                status = .error
                self.error = error
            }
            failed(error)
            return -1
        }
    }

    // Nothing to schedule: URLSession reads the stream synchronously.
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
