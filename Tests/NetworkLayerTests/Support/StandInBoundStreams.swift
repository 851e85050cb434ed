import Foundation
import NetworkLayerSupport

/// A bound stream pair for FoundationNetworking, which has no `Stream.getBoundStreams`: what the output takes, the
/// input gives, through a buffer of a fixed size. It plays Apple's pair in the tests' Apple flavor on Linux
/// (``TestFlavor``), so that `URLSessionTransport`'s Apple way of sending a streamed body (the pair, and the thread
/// that fills it, `UploadStreamFeeder`) runs here against a real URLSession and a real server.
///
/// Two things differ from Apple's pair, each because FoundationNetworking reads a body stream synchronously where
/// Apple's URLSession waits for the stream's events:
/// - A read waits for bytes (as ``UploadInputStream`` does) and ends with an error once the send has ended
///   (`sendEnded`): Apple's URLSession, cancelled, simply reads no more; FoundationNetworking, blocked in a read that
///   never returned, could never cancel the task.
/// - `hasSpaceAvailable` waits a little for room before it answers no: the feeder waits for room on its run loop,
///   and this pair schedules no events there, so without it the feeder would sleep between looks.
enum StandInBoundStreams {
    /// A new pair: the input for URLSession, the output for the feeder.
    static func make(bufferSize: Int, sendEnded: @escaping @Sendable () -> Bool) -> (InputStream, OutputStream) {
        let buffer = Buffer(capacity: bufferSize, sendEnded: sendEnded)
        return (Input(buffer), Output(buffer))
    }

    /// The bytes between the two ends, and what each end did, under one condition.
    ///
    /// Why `@unchecked Sendable` is sound: every stored property but the two constants is read and written only
    /// while `condition` is locked (`locked(_:)`, `wait(upTo:)`).
    final class Buffer: @unchecked Sendable {
        let capacity: Int
        let sendEnded: @Sendable () -> Bool
        private let condition = NSCondition()
        var bytes = Data()
        var outputClosed = false
        var inputClosed = false

        init(capacity: Int, sendEnded: @escaping @Sendable () -> Bool) {
            self.capacity = capacity
            self.sendEnded = sendEnded
        }

        func locked<Result>(_ work: (Buffer) -> Result) -> Result {
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            return work(self)
        }

        /// Waits, locked, until a change or `seconds` passed.
        func wait(upTo seconds: TimeInterval) {
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }

        func lock() { condition.lock() }
        func unlock() { condition.unlock() }
    }

    /// How long a read waits between looks at whether the send has ended, in seconds.
    static let readCheckInterval: TimeInterval = 0.01
    /// How long `hasSpaceAvailable` waits for room before it answers no, in seconds.
    static let roomWait: TimeInterval = 0.02

    final class Input: InputStream {
        private let buffer: Buffer
        private let state = Locked((status: Stream.Status.notOpen, error: (any Error)?.none))

        init(_ buffer: Buffer) {
            self.buffer = buffer
            super.init(data: Data())
        }

        override func open() { state.withLock { if $0.status == .notOpen { $0.status = .open } } }

        override func close() {
            state.withLock { $0.status = .closed }
            buffer.locked { $0.inputClosed = true }
        }

        override var streamStatus: Stream.Status { state.withLock { $0.status } }
        override var streamError: (any Error)? { state.withLock { $0.error } }

        override var hasBytesAvailable: Bool {
            let status = state.withLock { $0.status }
            return status == .open || status == .reading
        }

        override func getBuffer(
            _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
        ) -> Bool {
            false
        }

        override func read(_ destination: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
            guard hasBytesAvailable else { return streamStatus == .atEnd ? 0 : -1 }
            buffer.lock()
            defer { buffer.unlock() }
            while true {
                if !buffer.bytes.isEmpty {
                    let count = min(length, buffer.bytes.count)
                    buffer.bytes.copyBytes(to: destination, count: count)
                    buffer.bytes.removeFirst(count)
                    buffer.wakeTheOtherEnd()
                    return count
                }
                if buffer.outputClosed {
                    state.withLock { $0.status = .atEnd }
                    return 0
                }
                if buffer.sendEnded() {
                    state.withLock {
                        $0.status = .error
                        $0.error = URLError(.cancelled)
                    }
                    return -1
                }
                buffer.wait(upTo: readCheckInterval)
            }
        }

        // URLSession reads the stream synchronously on FoundationNetworking: nothing to schedule.
        override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
        override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    }

    final class Output: OutputStream {
        private let buffer: Buffer
        private let status = Locked(Stream.Status.notOpen)

        init(_ buffer: Buffer) {
            self.buffer = buffer
            super.init(toMemory: ())
        }

        #if canImport(FoundationNetworking)
            // FoundationNetworking's OutputStream requires it of a subclass; nothing here makes a pair this way.
            required init(toMemory: ()) {
                fatalError("\(#function): a stand-in pair is made by StandInBoundStreams.make")
            }
        #endif

        override func open() { status.withLock { if $0 == .notOpen { $0 = .open } } }

        override func close() {
            status.withLock { $0 = .closed }
            buffer.locked { $0.outputClosed = true }
        }

        override var streamStatus: Stream.Status { status.withLock { $0 } }

        override var hasSpaceAvailable: Bool {
            buffer.lock()
            defer { buffer.unlock() }
            if buffer.inputClosed || buffer.bytes.count < buffer.capacity { return true }
            buffer.wait(upTo: roomWait)
            return buffer.inputClosed || buffer.bytes.count < buffer.capacity
        }

        override func write(_ source: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
            buffer.lock()
            defer { buffer.unlock() }
            if buffer.inputClosed { return -1 }
            let count = min(length, buffer.capacity - buffer.bytes.count)
            guard count > 0 else { return 0 }
            buffer.bytes.append(source, count: count)
            buffer.wakeTheOtherEnd()
            return count
        }

        // The feeder waits for room in `hasSpaceAvailable`: nothing to schedule.
        override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
        override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    }
}

extension StandInBoundStreams.Buffer {
    /// Wakes a waiting read or writer; called locked.
    fileprivate func wakeTheOtherEnd() {
        condition.broadcast()
    }
}
