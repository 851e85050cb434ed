import Foundation

/// A value guarded by a lock, for the little shared state the transport keeps.
///
/// `@unchecked Sendable` is sound here: `value` is private and only read or written inside `withLock`, while
/// `lock` is held, so no two threads ever touch it at once. (`Mutex` would say this to the compiler, but needs
/// macOS 15 and iOS 18.)
package final class Locked<Value>: @unchecked Sendable {
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
