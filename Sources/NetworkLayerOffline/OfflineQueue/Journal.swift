import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An append-only file of records, each `[length: 4 bytes][CRC-32: 4 bytes][payload]`, written whole and flushed
/// to disk (``flush(_:)``) before `append` returns.
///
/// A record is read only if its length fits the file and its checksum matches; reading stops at the first one that
/// does not, which is a record torn by a crash (or damage). Before appending, the writer cuts such a tail off, so new
/// records never follow garbage and every record that was ever appended in full stays readable. Every access takes
/// an exclusive `flock` on the file, so instances in one process and in several processes take turns.
struct Journal: Sendable {
    let file: URL

    /// A failure of the file system, with the call that failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Appends records and flushes them to disk; writes nothing when one is empty (it would read as a torn tail, and
    /// hide every record after it).
    func append(_ payloads: [Data]) throws(Failure) {
        guard !payloads.contains(where: \.isEmpty) else {
            throw Failure(description: "an empty record: the journal writes none, since reading stops at one")
        }
        try withLockedFile { fd throws(Failure) in
            let (_, validLength) = try readRecords(fd)
            if lseek(fd, 0, SEEK_END) != validLength {
                guard ftruncate(fd, off_t(validLength)) == 0 else { throw Self.failure("ftruncate") }
            }
            guard lseek(fd, off_t(validLength), SEEK_SET) >= 0 else { throw Self.failure("lseek") }
            try writeAll(fd, Self.framed(payloads))
            guard Self.flush(fd) else { throw Self.failure("fsync") }
        }
    }

    /// Every complete record, in order.
    func records() throws(Failure) -> [Data] {
        try withLockedFile { fd throws(Failure) in try readRecords(fd).records }
    }

    /// Empties the file.
    func removeAll() throws(Failure) {
        try withLockedFile { fd throws(Failure) in
            guard ftruncate(fd, 0) == 0, Self.flush(fd) else { throw Self.failure("ftruncate") }
        }
    }

    /// Replaces the records with `transform` of them, all under one hold of the lock, so that no record another
    /// writer appends meanwhile is lost.
    func rewrite(_ transform: ([Data]) -> [Data]) throws(Failure) {
        try withLockedFile { fd throws(Failure) in
            let (records, _) = try readRecords(fd)
            let kept = transform(records)
            guard kept.count != records.count else { return }
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw Self.failure("ftruncate") }
            try writeAll(fd, Self.framed(kept))
            guard Self.flush(fd) else { throw Self.failure("fsync") }
        }
    }

    /// Flushes a file's writes to the disk itself: `fsync` on Linux; on Darwin `fsync` only hands them to the drive,
    /// whose cache may lose them at a power cut, and `F_FULLFSYNC` is what makes them durable (falling back to
    /// `fsync` on a file system that does not support it). `F_FULLFSYNC` does not exist in Glibc: hence the branch.
    static func flush(_ fd: Int32) -> Bool {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(fd) == 0
    }

    private func withLockedFile<Result>(_ body: (Int32) throws(Failure) -> Result) throws(Failure) -> Result {
        let isNew = !FileManager.default.fileExists(atPath: file.path)
        let fd = open(file.path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw Self.failure("open \(file.path)") }
        defer { close(fd) }
        if isNew { Self.syncDirectory(of: file) }
        guard flock(fd, LOCK_EX) == 0 else { throw Self.failure("flock") }
        defer { flock(fd, LOCK_UN) }
        return try body(fd)
    }

    /// The complete records and the length of the file up to the end of the last of them.
    private func readRecords(_ fd: Int32) throws(Failure) -> (records: [Data], validLength: Int) {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw Self.failure("lseek") }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count >= 0 else { throw Self.failure("read") }
            if count == 0 { break }
            contents.append(contentsOf: buffer[..<count])
        }
        return Self.parse(contents)
    }

    /// The complete records at the start of `contents`, and where the last of them ends: reading stops at the first
    /// record whose length passes the end or whose checksum does not match, and at an empty one, which the journal
    /// never writes (zeros left by a crash look like one: their length and checksum are both 0).
    static func parse(_ contents: Data) -> (records: [Data], validLength: Int) {
        let contents = Data(contents)  // indices from 0
        var records: [Data] = []
        var offset = 0
        while offset + 8 <= contents.count {
            let length = Int(contents.bigEndianUInt32(at: offset))
            let checksum = contents.bigEndianUInt32(at: offset + 4)
            let start = offset + 8
            guard length > 0, length <= contents.count - start else { break }
            let payload = contents[start..<(start + length)]
            guard CRC32.checksum(payload) == checksum else { break }
            records.append(Data(payload))
            offset = start + length
        }
        return (records, offset)
    }

    private func writeAll(_ fd: Int32, _ bytes: Data) throws(Failure) {
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written else { throw Self.failure("write") }
    }

    /// The failure of the system call `call`, with the system's error.
    static func failure(_ call: String) -> Failure {
        Failure(description: "\(call) failed: \(String(cString: strerror(errno)))")
    }

    /// Flushes a newly created file's directory entry, so the file itself survives a crash.
    private static func syncDirectory(of file: URL) {
        let fd = open(file.deletingLastPathComponent().path, O_RDONLY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Payloads as records: each with its length and checksum in front.
    static func framed(_ payloads: [Data]) -> Data {
        var bytes = Data()
        for payload in payloads {
            bytes.appendBigEndian(UInt32(payload.count))
            bytes.appendBigEndian(CRC32.checksum(payload))
            bytes.append(payload)
        }
        return bytes
    }
}
