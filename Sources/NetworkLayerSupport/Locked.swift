public import Foundation

/// A value guarded by a lock: the state of a send (``SendState``), of the deadline monitor, of the offline queue's
/// replays, and the other small state that concurrent sends share.
///
/// Why `@unchecked Sendable` is sound:
/// - the only stored state is `lock` (an `NSLock`, itself `Sendable`) and `value`, which no code outside this class
///   touches (it is `@usableFromInline` only so that `withLock` can be inlined, and specialized, in the transport
///   modules: an unspecialized generic call looked its metadata up on every request);
/// - `value` is read or written only inside `withLock`, between `lock()` and `unlock()` (the `defer` runs on throws
///   too), so no two threads ever touch it at once, and the lock orders every access after the previous one;
/// - `Value` is `Sendable`, so whatever `withLock` hands back out of the critical section may cross threads;
/// - the class is `final`, so no subclass can add unguarded state.
///
/// `Mutex` from the Synchronization module would say this to the compiler, but needs macOS 15 and iOS 18.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// A lock guarding `value`.
    @inlinable public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; what it returns crosses out of the critical section.
    @inlinable public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
