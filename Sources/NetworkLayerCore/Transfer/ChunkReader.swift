import Foundation

/// Reads a body to send from its start, a chunk at a time, without waiting: what a transport pulls from an
/// ``UploadBody`` whose bytes are at hand (data, a file, a multipart form).
///
/// A reader is used by one transfer on one thread at a time; each attempt makes a new one, from the start.
@_spi(TransportKit) public protocol ChunkReader: AnyObject {
    /// Copies the next bytes into `buffer` and returns how many; 0 at the end.
    ///
    /// - Throws: ``NetworkError`` when a file cannot be read any more (it shrank, or the disk failed).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int
}

/// Reads bytes held in memory.
@_spi(TransportKit) public final class DataChunkReader: ChunkReader {
    private let data: Data
    private var offset = 0

    /// A reader of `data`, from its start.
    public init(_ data: Data) {
        self.data = data
    }

    /// Copies the next bytes into `buffer`; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, data.count - offset)
        guard count > 0, let base = buffer.baseAddress else { return 0 }
        data.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress else { return }
            base.copyMemory(from: source + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// Reads a file from disk in chunks, exactly the length it had when the upload was prepared.
@_spi(TransportKit) public final class FileChunkReader: ChunkReader {
    private let file: URL
    private let handle: FileHandle
    private var remaining: Int64

    /// Opens `file` to read `length` bytes from its start.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body when it cannot be opened.
    public init(file: URL, length: Int64) throws(NetworkError) {
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw .invalidRequest(.body, reason: "cannot read \(file.path): \(error)", underlyingError: error)
        }
        self.file = file
        remaining = length
    }

    deinit {
        try? handle.close()
    }

    /// Reads the next bytes of the file into `buffer`; 0 at the end. Throws when the file cannot be read or ended before its length.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int {
        guard remaining > 0, let base = buffer.baseAddress else { return 0 }
        let wanted = Int(min(Int64(buffer.count), remaining))
        var count = 0
        while count < wanted {
            let got = Foundation.read(handle.fileDescriptor, base + count, wanted - count)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                let reason = got == 0 ? "it shrank while being read" : String(cString: strerror(errno))
                throw .invalidRequest(.body, reason: "cannot read \(file.path): \(reason)")
            }
            count += got
        }
        remaining -= Int64(count)
        return count
    }

    /// The length of the regular file at `url`.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the body when it is missing, not a
    ///   regular file, or unreadable: nothing is sent.
    public static func length(of url: URL) throws(NetworkError) -> Int64 {
        guard url.isFileURL else { throw .invalidRequest(.body, reason: "\(url) is not a file URL") }
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw .invalidRequest(.body, reason: "cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .invalidRequest(.body, reason: "\(url.path) is not a regular file")
        }
        guard access(url.path, R_OK) == 0 else {
            throw .invalidRequest(.body, reason: "cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        return Int64(info.st_size)
    }
}

extension ChunkReader {
    /// Everything left to read, in memory, each chunk counted into `progress` as it is read.
    func readAll(counting progress: ProgressReporter? = nil) throws(NetworkError) -> Data {
        var whole = Data()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = try read(into: &buffer)
            guard count > 0 else { return whole }
            whole.append(contentsOf: buffer[..<count])
            progress?.add(count)
        }
    }

    /// Reads the next bytes into the start of `buffer`; 0 at the end.
    func read(into buffer: inout [UInt8]) throws(NetworkError) -> Int {
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(NetworkError) -> Int in try read(into: raw) }
        }
        return try result.get()
    }
}
