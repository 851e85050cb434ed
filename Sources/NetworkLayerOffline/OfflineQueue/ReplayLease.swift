import Foundation
import NetworkLayerCore
import NetworkLayerSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The right to replay a queue's journal: an exclusive `flock` on a file next to it, taken without waiting, so one
/// instance (in this process or another) replays at a time.
final class ReplayLock: Sendable {
    private let fd: Int32

    /// Takes the lock, or returns `nil` when another instance holds it; throws when the lock file cannot be opened.
    init?(file: URL) throws(Journal.Failure) {
        let fd = open(file.path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw Journal.failure("open \(file.lastPathComponent)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    /// Gives the lock back.
    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
