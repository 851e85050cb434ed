import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of one download: the destination, and beside it (same directory, so the final rename is atomic) the
/// partial file the body is written to and the sidecar that holds its validator.
///
/// For a destination `dir/video.mp4`:
/// - `dir/.video.mp4.partial`: the bytes so far;
/// - `dir/.video.mp4.partial.validator`: one line, `ETag: "…"` or `Last-Modified: …`, present only while the
///   partial can be resumed.
///
/// The destination is only ever replaced by renaming a complete, synced partial file over it.
struct DownloadFile: Sendable {
    let destination: URL
    let partial: URL
    let sidecar: URL

    /// The files for `destination`, once it is known to be a file URL in a directory that exists.
    init(_ destination: URL) throws(NetworkError) {
        guard destination.isFileURL, !destination.lastPathComponent.isEmpty, destination.lastPathComponent != "/"
        else {
            throw .invalidRequest(.url, reason: "the download destination \(destination) is not a file URL")
        }
        let destination = destination.standardizedFileURL
        let directory = destination.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw .invalidRequest(.url, reason: "the download destination's directory \(directory.path) does not exist")
        }
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .invalidRequest(.url, reason: "the download destination \(destination.path) is a directory")
        }
        self.destination = destination
        partial = directory.appendingPathComponent(".\(destination.lastPathComponent).partial")
        sidecar = directory.appendingPathComponent(".\(destination.lastPathComponent).partial.validator")
    }

    /// What an earlier call left: the partial file's length and validator. A partial file without a readable
    /// validator (or a validator without a partial file) cannot be resumed and is removed.
    func leftover() -> DownloadResume {
        let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value
        let line = (try? Data(contentsOf: sidecar)).map { String(decoding: $0.prefix(4096), as: UTF8.self) }
        guard let size, size > 0, let line, let validator = DownloadValidator(line: line) else {
            discard()
            return DownloadResume()
        }
        return DownloadResume(offset: size, validator: validator)
    }

    /// Opens the partial file to write from `offset` (cutting off anything after it) and records `validator`
    /// beside it; without a validator no sidecar is left, so a crash leaves nothing a later call would resume.
    func open(from offset: Int64, validator: DownloadValidator?) throws(NetworkError) -> Writer {
        do {
            if offset == 0 {
                try removeIfPresent(sidecar)
                guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial.path])
                }
                if let validator { try Data(validator.line.utf8).write(to: sidecar, options: .atomic) }
            }
            let handle = try FileHandle(forWritingTo: partial)
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
            return Writer(handle: handle, written: offset)
        } catch {
            throw Self.failure("cannot write \(partial.path)", error)
        }
    }

    /// Syncs the partial file, renames it over the destination and removes the sidecar.
    func commit(_ writer: Writer) throws(NetworkError) {
        do {
            try writer.handle.synchronize()
            try writer.handle.close()
        } catch {
            throw Self.failure("cannot write \(partial.path)", error)
        }
        guard rename(partial.path, destination.path) == 0 else {
            throw Self.failure("cannot move the download to \(destination.path)", POSIXError.current)
        }
        try? removeIfPresent(sidecar)
        syncDirectory()
    }

    /// Removes the partial file and its sidecar; the destination is never touched.
    func discard() {
        try? removeIfPresent(partial)
        try? removeIfPresent(sidecar)
    }

    private func removeIfPresent(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }

    /// Makes the rename itself durable.
    private func syncDirectory() {
        let descriptor = Foundation.open(destination.deletingLastPathComponent().path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    /// A file-system failure, as the error a download throws: nothing about the network was wrong.
    static func failure(_ reason: String, _ error: any Error) -> NetworkError {
        .transport(
            .other,
            underlyingError: URLError(
                .cannotWriteToFile, userInfo: [NSLocalizedDescriptionKey: reason, NSUnderlyingErrorKey: error]))
    }

    /// The partial file open for writing, and how long it is.
    final class Writer {
        let handle: FileHandle
        private(set) var written: Int64

        init(handle: FileHandle, written: Int64) {
            self.handle = handle
            self.written = written
        }

        /// Appends a chunk as it arrived.
        func write(_ chunk: Data) throws(NetworkError) {
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw DownloadFile.failure("cannot write the download", error)
            }
            written += Int64(chunk.count)
        }

        /// Closes the file without syncing it: the transfer failed or stopped.
        func close() {
            try? handle.close()
        }
    }
}

extension POSIXError {
    /// The error in `errno`.
    fileprivate static var current: POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
