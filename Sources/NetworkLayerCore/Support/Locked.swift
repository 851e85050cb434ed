import Foundation

/// A value guarded by a lock: the state of a send (``SendState``), of the deadline monitor, of the offline queue's
/// replays, and the other small state that concurrent sends share.
///
/// Why `@unchecked Sendable` is sound:
/// - the only stored state is `lock` (an `NSLock`, itself `Sendable`) and `value`, which is `private`;
/// - `value` is read or written only inside `withLock`, between `lock()` and `unlock()` (the `defer` runs on throws
///   too), so no two threads ever touch it at once, and the lock orders every access after the previous one;
/// - `Value` is `Sendable`, so whatever `withLock` hands back out of the critical section may cross threads;
/// - the class is `final`, so no subclass can add unguarded state.
///
/// `Mutex` from the Synchronization module would say this to the compiler, but needs macOS 15 and iOS 18.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
