import Foundation

/// The input stream a URLSession reads a streamed upload body from: it reads a ``ChunkReader`` (a multipart form's,
/// or the ``ChunkPipe`` of a `.stream` body) on the session's thread.
///
/// URLSession reads it synchronously and takes a read of 0 bytes, or `hasBytesAvailable` turning false, as the end
/// of the body (FoundationNetworking has no "later" for a stream), so a read waits until bytes come.
///
/// URLSession reads a body stream from one thread at a time; the stream's state (`status`, `error`) is guarded by
/// `lock` all the same, and the reader is touched only inside `read`, under the lock too.
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
        lock.lock()
        defer { lock.unlock() }
        guard status == .open || status == .reading else { return status == .atEnd ? 0 : -1 }
        status = .reading
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: len))
            status = count == 0 ? .atEnd : .open
            return count
        } catch {
            status = .error
            self.error = error
            failed(error)
            return -1
        }
    }

    // Nothing to schedule: URLSession reads the stream synchronously.
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
