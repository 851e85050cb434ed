import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// A loop's poller (its epoll set and wake-up), which any thread may wake.
    ///
    /// Why `@unchecked Sendable` is sound: the pointer is set once; waking (an eventfd write) and waiting (an
    /// `epoll_wait`) are system calls that any thread may make at any time; and it is freed in the deinit of the loop's
    /// ``CurlMulti``, which runs only after the loop's thread has returned (the thread holds the loop) and after
    /// every closure that could wake it has been released (they hold the loop too).
    struct CurlPoller: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The right to drive one loop's multi handle: whoever holds it (the loop's thread during a turn, or a caller
    /// that found the loop waiting) is the only one to call libcurl with the loop's handles, and the only one to
    /// touch its transfers.
    ///
    /// Why `@unchecked Sendable` is sound: `transfers` is reached only through ``drive(_:)`` and
    /// ``driveIfFree(_:)``, between `lock()` and `unlock()` of the one lock, so no two threads ever touch it (or
    /// libcurl's handles it owns) at once, and each holder sees what the one before wrote. Its `deinit` frees the
    /// multi handle without the lock: it runs only once nothing can reach the driver any more.
    final class CurlDriver: @unchecked Sendable {
        private let lock = NSLock()
        private let transfers: CurlMulti

        init(_ transfers: CurlMulti) {
            self.transfers = transfers
        }

        /// Runs `body` with the transfers, waiting for the lock.
        func drive<Result>(_ body: (CurlMulti) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(transfers)
        }

        /// Runs `body` with the transfers if nobody drives the loop now; nil, without waiting, if somebody does.
        func driveIfFree<Result>(_ body: (CurlMulti) -> Result) -> Result? {
            guard lock.try() else { return nil }
            defer { lock.unlock() }
            return body(transfers)
        }
    }
#endif
