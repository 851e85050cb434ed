import Foundation
import NetworkLayerSupport

/// Copies an upload body from its ``ChunkReader`` into the output end of a bound stream pair, on a thread of its
/// own, while URLSession reads the input end: how ``URLSessionTransport`` hands a multipart form or a `.stream` body
/// over on Apple platforms, the way Foundation documents for streamed uploads (`Stream.getBoundStreams`), so that
/// URLSession drives a stream of its own kind, with its events and scheduling.
///
/// The copy loop (``feed(from:into:until:)``) is plain shared code, tested on Linux against any `OutputStream`: it
/// writes every byte, across partial writes, closes the output at the end, and stops at the first failure of either
/// side, or once the send has ended: it never blocks on an output that has no room (URLSession may drop the input
/// end without closing it), so the thread ends with its send.
///
/// A body that did not end well is never closed before its task has completed: closing the output is the input's
/// clean end of stream, and URLSession would end the request there (a chunked body with its last chunk), so that a
/// server took a body cut short by a failure or a cancellation for the whole of it.
enum UploadStreamFeeder {
    /// Where the copy writes: an `OutputStream`, or a test's stand-in (subclassing `OutputStream` differs between
    /// Foundation's two implementations).
    protocol ByteSink: AnyObject {
        /// Writes up to `length` bytes; returns how many, or 0 or less once the other end is gone.
        func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int
        /// Whether a write would take a byte without blocking.
        var hasSpaceAvailable: Bool { get }
        /// Waits at most `seconds` for an event of the stream (room made by its reader, the other end closed).
        func waitForEvent(upTo seconds: TimeInterval)
        /// Ends the stream.
        func close()
    }

    /// How the copy ended.
    enum Outcome: Equatable {
        /// The whole body was written and the output closed.
        case finished(bytes: Int)
        /// The reader failed (a file that shrank, a stream that threw or broke its length): the body ends here.
        case readerFailed(NetworkError)
        /// The output refused bytes: URLSession closed the other end (the task was cancelled or failed).
        case outputClosed
        /// The send ended (it was cancelled, reached its deadline or failed) before the body was written.
        case stopped

        static func == (left: Outcome, right: Outcome) -> Bool {
            switch (left, right) {
            case (.finished(let a), .finished(let b)): a == b
            case (.readerFailed(let a), .readerFailed(let b)): a.description == b.description
            case (.outputClosed, .outputClosed), (.stopped, .stopped): true
            default: false
            }
        }
    }

    /// The size of each chunk read and of the bound pair's buffer.
    static let chunkSize = 64 * 1024

    /// How often a copy waiting for room asks whether its send has ended, in seconds.
    static let stopCheckInterval: TimeInterval = 0.05

    /// Copies the whole body into `output`, which is open, and closes it once the whole body is written (or the
    /// other end closed it); after a reader's failure or the send's end, leaves it open (see the type's
    /// documentation). Blocks while the reader waits for bytes (a ``ChunkPipe`` wakes it when its send ends); while
    /// the output has no room, waits for the stream's next event, and asks every ``stopCheckInterval`` whether
    /// `stopped` says the send has ended.
    static func feed(
        from reader: any ChunkReader,
        into output: some ByteSink,
        until stopped: () -> Bool = { false }
    ) -> Outcome {
        let outcome = copy(from: reader, into: output, until: stopped)
        switch outcome {
        case .finished, .outputClosed: output.close()
        case .readerFailed, .stopped: break
        }
        return outcome
    }

    /// The copy of ``feed(from:into:until:)``, without the close.
    private static func copy(from reader: any ChunkReader, into output: some ByteSink, until stopped: () -> Bool)
        -> Outcome
    {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return .finished(bytes: 0) }
        var total = 0
        while true {
            if stopped() { return .stopped }
            let count: Int
            do {
                count = try reader.read(into: buffer)
            } catch {
                return .readerFailed(error)
            }
            guard count > 0 else { return .finished(bytes: total) }
            var written = 0
            while written < count {
                guard waitForRoom(in: output, until: stopped) else { return .stopped }
                let bytes = base.advanced(by: written).assumingMemoryBound(to: UInt8.self)
                let step = output.write(bytes, maxLength: count - written)
                guard step > 0 else { return .outputClosed }
                written += step
            }
            total += count
        }
    }

    /// Waits until `output` has room; false if `stopped` says the send ended first.
    private static func waitForRoom(in output: some ByteSink, until stopped: () -> Bool) -> Bool {
        while !output.hasSpaceAvailable {
            if stopped() { return false }
            output.waitForEvent(upTo: stopCheckInterval)
        }
        return true
    }

    /// The longest a body that did not end well is held open for its task to complete, in seconds; a task always
    /// completes sooner once its send has ended (it is cancelled then). Past it the output is left unclosed: an
    /// end of stream must never reach a task still running.
    static let longestHold: TimeInterval = 60

    /// Holds an output whose body did not end well until `taskCompleted` says its task has completed (cancelling the
    /// task first, so that it does), then closes it; past ``longestHold`` leaves it open. Returns whether it closed.
    static func hold(
        _ output: some ByteSink,
        cancelTask: () -> Void,
        until taskCompleted: () -> Bool,
        uptime: () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }
    ) -> Bool {
        cancelTask()
        let start = uptime()
        while !taskCompleted() {
            guard uptime() - start < longestHold else { return false }
            output.waitForEvent(upTo: stopCheckInterval)
        }
        output.close()
        return true
    }

    /// A new bound pair whose output a thread fills from `reader`; returns the input for URLSession, or `nil` where
    /// there is no bound pair (FoundationNetworking, but for the Apple flavor's stand-in). `failed` hears a reader's
    /// failure (the send ends with it); an output closed by URLSession, or the send's end (`stopped`), ends the copy
    /// quietly. A body that did not end well is closed only once `taskCompleted` says its task has completed, after
    /// `cancelTask`.
    static func start(
        _ reader: any ChunkReader,
        until stopped: @escaping @Sendable () -> Bool,
        cancelTask: @escaping @Sendable () -> Void,
        taskCompleted: @escaping @Sendable () -> Bool,
        failed: @escaping @Sendable (NetworkError) -> Void
    ) -> InputStream? {
        guard let (input, output) = boundPair(until: stopped) else { return nil }
        output.open()
        let handOff = HandOff(reader: reader, output: output)
        let thread = Thread {
            // The output's events (room made, the other end closed) reach this thread's run loop, which the copy
            // runs while it waits for room.
            handOff.output.schedule(in: .current, forMode: .default)
            defer { handOff.output.remove(from: .current, forMode: .default) }
            let outcome = feed(from: handOff.reader, into: handOff.output, until: stopped)
            switch outcome {
            case .finished, .outputClosed:
                return
            case .readerFailed(let error):
                failed(error)  // ends the send, which cancels the task
            case .stopped:
                break
            }
            _ = hold(handOff.output, cancelTask: cancelTask, until: taskCompleted)
        }
        thread.name = "NetworkLayer upload body"
        thread.start()
        return input
    }

    /// A bound stream pair: the one Apple-only call of the upload path. FoundationNetworking has no
    /// `Stream.getBoundStreams`: there the pair is the Apple flavor's stand-in (`PlatformFlavor.StandIns`), which
    /// `stopped` lets end a read that waits for bytes, and Linux's own flavor hands an ``UploadInputStream`` over
    /// instead (``URLSessionUpload/handsOverThroughBoundStreams``).
    private static func boundPair(until stopped: @escaping @Sendable () -> Bool) -> (InputStream, OutputStream)? {
        #if canImport(FoundationNetworking)
            return PlatformFlavor.current.standIns?.boundStreams(chunkSize, stopped)
        #else
            var input: InputStream?
            var output: OutputStream?
            Stream.getBoundStreams(withBufferSize: chunkSize, inputStream: &input, outputStream: &output)
            guard let input, let output else { return nil }
            return (input, output)
        #endif
    }

    /// The reader and the output, handed from the thread that prepares the upload to the feeder's thread.
    ///
    /// Why `@unchecked Sendable` is sound: both are created (or made) on the preparing thread and stored in this
    /// value before the feeder's thread starts; from then on only that thread touches them (URLSession reads the
    /// pair's other end, a separate object), and `Thread.start()` orders the stores before the thread's first read.
    private final class HandOff: @unchecked Sendable {
        let reader: any ChunkReader
        let output: OutputStream

        init(reader: any ChunkReader, output: OutputStream) {
            self.reader = reader
            self.output = output
        }
    }
}

extension OutputStream: UploadStreamFeeder.ByteSink {
    /// Runs this thread's run loop, on which the feeder scheduled the stream, until it handled an event or
    /// `seconds` passed; sleeps instead when the run loop has nothing to run (a stream scheduled nowhere).
    func waitForEvent(upTo seconds: TimeInterval) {
        if !RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: seconds)) {
            Thread.sleep(forTimeInterval: seconds)
        }
    }
}
