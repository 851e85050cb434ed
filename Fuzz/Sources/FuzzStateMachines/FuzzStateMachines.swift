import Foundation

@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerOffline

#if os(Linux)
    @testable import NetworkLayerCurl
#endif

/// One input: a sequence of events, each one a caller could send at that point, driven into a lifecycle machine
/// (the first byte says which: a stream's pipe, a send, a WebSocket's inbox, a Curl loop's ledger, or an offline
/// queue's replays). Every waiter must be answered exactly once by the time the machine ends, and the
/// machine must never stop the process on a sequence its callers can produce.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    var bytes = Bytes(UnsafeBufferPointer(start: start, count: count))
    guard let first = bytes.next() else { return 0 }
    switch first % 6 {
    case 0, 2:
        var run = ChunkPipeRun(blocking: first & 2 != 0)
        run.drive(&bytes)
    case 1:
        var run = SendRun()
        run.drive(&bytes)
    case 4:
        var run = InboxRun()
        run.drive(&bytes)
    case 5:
        #if os(Linux)
            var run = LedgerRun()
            run.drive(&bytes)
        #endif
    default:
        var run = ReplayRun()
        run.drive(&bytes)
    }
    return 0
}

/// The input, read a byte at a time.
struct Bytes {
    private let buffer: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// The bytes of one input.
    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The next byte, nil at the end.
    mutating func next() -> UInt8? {
        guard index < buffer.count else { return nil }
        defer { index += 1 }
        return buffer[index]
    }
}

/// A producer and a reader around one `ChunkPipe.StateMachine`, as `ChunkPipe` drives it.
struct ChunkPipeRun {
    /// The machine, with numbers for writers.
    typealias Machine = ChunkPipe.StateMachine<Int>

    /// Where the producer is.
    enum Producer {
        /// It may write, finish or fail.
        case idle
        /// Its write found the buffer full; it waits for room next, with this chunk.
        case full(Data)
        /// It waits for room as this writer.
        case waiting(Int)
        /// Its write threw: it fails the pipe next.
        case mustFail(NetworkError)
        /// It finished or failed.
        case done
    }

    /// The machine under test.
    var machine = Machine()
    /// Where the producer is.
    var producer = Producer.idle
    /// Whether the reader blocks (FoundationNetworking) or pulls (libcurl).
    let blocking: Bool
    /// Whether the reader waits to be woken.
    var readerWaits = false
    /// Whether the reader has seen the end or a failure.
    var readerDone = false
    /// The number the next waiting writer gets.
    var nextWriter = 1
    /// The number of the last chunk written.
    var written: UInt8 = 0
    /// The chunks written and not read yet: their numbers and how many of their bytes are left.
    var unread: [(number: UInt8, left: Int)] = []
    /// Where reads land: as large as the largest read.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024 + 1, alignment: 1)
    /// Whether the producer's start was claimed.
    var pumpClaimed = false
    /// The producer's task, once started.
    var pump: Task<Void, Never>?
    /// How often the producer's task was cancelled.
    var cancels = 0

    /// A run whose reader blocks or pulls.
    init(blocking: Bool) {
        self.blocking = blocking
    }

    /// A chunk of `count` bytes, each the chunk's number, remembered in the order written.
    mutating func chunk(_ count: Int) -> Data {
        written &+= 1
        unread.append((written, count))
        return Data(repeating: written, count: count)
    }

    /// Sends the events the input names, then ends the pipe as a transport does, and checks every waiter was answered once.
    mutating func drive(_ bytes: inout Bytes) {
        while let byte = bytes.next() {
            let size = Int(bytes.next() ?? 1) * 1024 + 1
            switch byte % 8 {
            case 0: write(size)
            case 1: waitForRoom()
            case 2: if case .idle = producer { perform(machine.finish(), then: .done) }
            case 3: fail()
            case 4: perform(machine.close(), then: nil)
            case 5: readOnce(size)
            case 6: startPump()
            default: readOnce(Int(byte))
            }
        }
        // The transport always closes the pipe when the send ends; the producer, cancelled, ends too.
        perform(machine.close(), then: nil)
        waitForRoom()
        fail()
        if case .waiting(let writer) = producer { preconditionFailure("writer \(writer) was never resumed") }
        precondition(!(blocking && readerWaits), "a blocked reader was never woken")
        if pump != nil { precondition(cancels == 1, "the producer was cancelled \(cancels) times") }
        buffer.deallocate()
    }

    /// The producer writes a chunk of `size` bytes, if it may.
    mutating func write(_ size: Int) {
        guard case .idle = producer else { return }
        let data = chunk(size)
        switch machine.write(data) {
        case .added(let wake): perform(Machine.Action(wake: wake), then: nil)
        case .full: producer = .full(data)
        case .refused(let error): producer = .mustFail(error)
        }
    }

    /// The producer, whose write found the buffer full, waits for room.
    mutating func waitForRoom() {
        guard case .full(let data) = producer else { return }
        let writer = nextWriter
        nextWriter += 1
        producer = .waiting(writer)
        perform(machine.waitForRoom(data, writer: writer), then: nil)
    }

    /// The producer fails, if it may: it throws, or its write threw.
    mutating func fail() {
        switch producer {
        case .idle: perform(machine.fail(.cancelled), then: .done)
        case .mustFail(let error): perform(machine.fail(error), then: .done)
        case .full, .waiting, .done: break
        }
    }

    /// Claims the producer's start, starts it, or asks to start it again.
    mutating func startPump() {
        if !pumpClaimed {
            pumpClaimed = machine.startPump()
            precondition(pumpClaimed, "the first start was refused")
        } else if pump == nil {
            let task = Task<Void, Never> {}
            pump = task
            perform(machine.pumpStarted(task), then: nil)
        } else {
            precondition(!machine.startPump(), "the producer started twice")
        }
    }

    /// The reader reads up to `size` bytes, unless it waits on its thread or is done.
    mutating func readOnce(_ size: Int) {
        guard !readerDone, !(blocking && readerWaits) else { return }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(max(size, 1), buffer.count)])
        switch machine.read(into: target, as: blocking ? .blocking : .pulling) {
        case .bytes(let count, let action):
            precondition(count > 0 && !readerWaits, "bytes for a reader that waits")
            precondition(count <= unread[0].left, "a read ran past its chunk")
            precondition(target[0] == unread[0].number && target[count - 1] == unread[0].number, "bytes out of order")
            unread[0].left -= count
            if unread[0].left == 0 { unread.removeFirst() }
            perform(action, then: nil)
        case .wait: readerWaits = true
        case .end, .failed: readerDone = true
        }
    }

    /// Carries out `action` as `ChunkPipe.perform` does, checking that each waiter it names was waiting.
    mutating func perform(_ action: Machine.Action, then next: Producer?) {
        if let next { producer = next }
        if let resume = action.resume {
            guard case .waiting(let writer) = producer, writer == resume.writer else {
                preconditionFailure("writer \(resume.writer) resumed, but it does not wait")
            }
            switch resume.result {
            case .success: producer = .idle
            case .failure(let error): producer = .mustFail(error)
            }
        }
        if let wake = action.wake {
            precondition(readerWaits, "a reader woken that does not wait")
            precondition(wake == (blocking ? .blocking : .pulling), "the wrong reader woken")
            readerWaits = false
        }
        if let task = action.cancel {
            precondition(task == pump, "a task cancelled that is not the producer")
            cancels += 1
        }
    }
}

/// A caller, its work, its deadline watch and the sources that end it, around one `SendState.StateMachine`.
struct SendRun {
    /// The machine, with numbers for the caller, the work and the outcome.
    typealias Machine = SendState<Int, Int>.StateMachine<Int>

    /// The monitor the deadline watches name.
    static let monitor = DeadlineMonitor()

    /// The machine under test.
    var machine = Machine()
    /// Whether the caller attached.
    var attached = false
    /// How often the caller was answered.
    var answers = 0
    /// The work that runs now, as far as the transport knows.
    var work: Int?
    /// The number the next work gets.
    var nextWork = 1
    /// Watches offered, and how often each was stopped.
    var watches: [Int: Int] = [:]
    /// Whether some source ended the send.
    var ended = false

    /// Sends the events the input names, then ends the send and attaches the caller, and checks it was answered once.
    mutating func drive(_ bytes: inout Bytes) {
        while let byte = bytes.next() {
            switch byte % 4 {
            case 0: attach()
            case 1:
                let id = nextWork
                nextWork += 1
                if machine.run(id) {
                    precondition(!ended, "work ran after the end")
                    work = id
                }
            case 2:
                guard watches.isEmpty else { break }
                let id = Int(byte)
                watches[id] = 0
                if !machine.watch((id, Self.monitor)) { watches[id, default: 0] += 1 }
            default: end(finished: byte & 4 != 0)
            }
        }
        // The send ends one way or another, and its caller attached at its start.
        end(finished: true)
        attach()
        precondition(answers == 1, "the caller was answered \(answers) times")
        precondition(watches.values.allSatisfy { $0 == 1 }, "a deadline watch was not stopped exactly once")
    }

    /// The caller attaches, once.
    mutating func attach() {
        guard !attached else { return }
        attached = true
        if machine.attach(7) != nil { answers += 1 }
    }

    /// A source ends the send; only the first one does.
    mutating func end(finished: Bool) {
        guard let ending = machine.end(with: .success(1), workFinished: finished) else {
            precondition(ended, "a send that had not ended refused to end")
            return
        }
        precondition(!ended, "a send ended twice")
        ended = true
        if let caller = ending.caller {
            precondition(caller == 7 && attached, "a caller that never attached was answered")
            answers += 1
        }
        precondition(ending.work == (finished ? nil : work), "the wrong work handed back")
        if let deadline = ending.deadline { watches[deadline.id, default: 0] += 1 }
    }
}

/// Replays and the flushes waiting for them, around one `ReplayState`, as `OfflineQueue` drives it.
struct ReplayRun {
    /// The machine, with numbers for flushes.
    typealias Machine = ReplayState<Int>

    /// The machine under test.
    var machine = Machine(network: nil)
    /// Whether a replay this run started is running.
    var running = false
    /// The flushes waiting, by id.
    var waiting: [Int: Int] = [:]
    /// How often each flush was answered.
    var answers: [Int: Int] = [:]
    /// The number the next flush gets.
    var nextFlush = 1
    /// The queue's clock, in nanoseconds.
    var now: UInt64 = 0

    /// Sends the events the input names, then ends the running replay, and checks every flush was answered once.
    mutating func drive(_ bytes: inout Bytes) {
        while let byte = bytes.next() {
            now += UInt64(byte) * 100_000_000
            switch byte % 7 {
            case 0, 1: start(ignoringBackoff: byte % 7 == 1)
            case 2: end()
            case 3, 4: wait()
            case 5: cancel(Int(byte / 7) % (nextFlush + 1))
            default: if byte & 128 == 0 { machine.failed(at: now) } else { machine.delivered() }
            }
        }
        end()
        precondition(waiting.isEmpty, "flushes \(waiting.values.sorted()) were never answered")
        precondition(answers.values.allSatisfy { $0 == 1 }, "a flush was answered more than once")
    }

    /// A replay asks to start: a flush's, or an automatic one within the backoff.
    mutating func start(ignoringBackoff: Bool) {
        let due = machine.isDue(at: now)
        switch machine.start(ignoringBackoff: ignoringBackoff, at: now) {
        case .started:
            precondition(!running, "two replays at once")
            precondition(ignoringBackoff || due, "an automatic replay started within the backoff")
            running = true
        case .refused:
            precondition(running || !ignoringBackoff, "a flush was refused while no replay ran")
        }
    }

    /// The running replay ends and answers the flushes that waited.
    mutating func end() {
        guard running else { return }
        running = false
        for flush in machine.end() { answer(flush) }
        precondition(waiting.isEmpty, "the end left flushes waiting")
    }

    /// A flush waits for the running replay.
    mutating func wait() {
        let id = machine.makeWaiterID()
        let flush = nextFlush
        nextFlush += 1
        precondition(waiting[id] == nil, "an id given twice")
        waiting[id] = flush
        if let resumed = machine.wait(id, flush) {
            precondition(!running, "a flush answered at once while a replay runs")
            answer(resumed)
        }
    }

    /// A flush, maybe not a waiting one, is cancelled.
    mutating func cancel(_ id: Int) {
        guard let flush = machine.cancelWait(id) else { return }
        precondition(waiting[id] == flush, "a cancellation answered another flush")
        answer(flush)
    }

    /// Counts an answer to `flush`, which must be waiting.
    mutating func answer(_ flush: Int) {
        guard let id = waiting.first(where: { $0.value == flush })?.key else {
            preconditionFailure("flush \(flush) answered, but it does not wait")
        }
        waiting[id] = nil
        answers[flush, default: 0] += 1
    }
}

/// A WebSocket's reader, its app and the watchers of its end around one `MessageInbox.StateMachine`, as
/// `MessageInbox` drives it: every message delivered before the end is read once, in order, and every waiter (a
/// receive, the reader waiting for room, a watcher) is answered exactly once.
struct InboxRun {
    typealias Machine = MessageInbox.StateMachine<Int, Int, Int>

    var machine = Machine()
    /// How often each waiter (receives, room waits and watches share the numbers) was answered.
    var answers: [Int: Int] = [:]
    var nextWaiter = 1
    /// The receive that waits, by its receive number and waiter.
    var receiving: (id: Int, waiter: Int)?
    /// The reader's wait for room.
    var readerWaits: Int?
    /// Watches that have not been stopped, by number, with their waiter.
    var watches: [Int: Int] = [:]
    /// The messages delivered while open, in order; the next one to read.
    var delivered: [Int] = []
    var read = 0
    var ended = false
    static let capacity = 3

    mutating func drive(_ bytes: inout Bytes) {
        while let byte = bytes.next() {
            switch byte % 7 {
            case 0: deliver()
            case 1: receive(cancelled: byte & 8 != 0)
            case 2:
                if let receiving, let waiter = machine.cancelReceive(receiving.id) {
                    precondition(waiter == receiving.waiter, "another receive was cancelled")
                    answer(waiter)
                    self.receiving = nil
                }
            case 3: waitForRoom()
            case 4: watch()
            case 5:
                if let (watch, waiter) = watches.first {
                    machine.stopWatching(watch)
                    watches[watch] = nil
                    answer(waiter)  // answered otherwise, as `race` does
                }
            default: finish()
            }
        }
        finish()
        // After the end, receives read what is left, then the end; nothing waits.
        for _ in 0...delivered.count where receiving == nil { receive(cancelled: false) }
        precondition(read == delivered.count, "read \(read) of \(delivered.count) messages")
        precondition(receiving == nil && readerWaits == nil && watches.isEmpty, "a waiter was left waiting")
        precondition(answers.values.allSatisfy { $0 == 1 }, "a waiter was answered more than once: \(answers)")
    }

    mutating func newWaiter() -> Int {
        defer { nextWaiter += 1 }
        answers[nextWaiter] = 0
        return nextWaiter
    }

    mutating func answer(_ waiter: Int) {
        precondition(answers[waiter] != nil, "an unknown waiter was answered")
        answers[waiter, default: 0] += 1
    }

    mutating func deliver() {
        let number = delivered.count + 1000
        if let waiter = machine.deliver(.binary(Data(String(number).utf8))) {
            precondition(!ended, "a message after the end reached a receive")
            guard let receiving, receiving.waiter == waiter else { preconditionFailure("a receive that did not wait") }
            delivered.append(number)
            check(.binary(Data(String(number).utf8)))
            answer(waiter)
            self.receiving = nil
        } else if !ended {
            precondition(receiving == nil, "a message was kept while a receive waited")
            delivered.append(number)
        }
    }

    mutating func check(_ message: WebSocketMessage) {
        precondition(read < delivered.count, "read more than was delivered")
        precondition(message == .binary(Data(String(delivered[read]).utf8)), "a message out of order")
        read += 1
    }

    mutating func receive(cancelled: Bool) {
        let waiter = newWaiter()
        let id = machine.nextReceive()
        switch machine.receive(id, waiter, isCancelled: cancelled) {
        case .wait:
            precondition(receiving == nil && !ended && !cancelled, "a receive waited when it could not")
            receiving = (id, waiter)
        case .answer(let result, let freed):
            answer(waiter)
            if case .success(let message?) = result { check(message) }
            if let freed {
                precondition(freed == readerWaits, "another reader was freed")
                answer(freed)
                readerWaits = nil
            }
        }
    }

    mutating func waitForRoom() {
        guard readerWaits == nil else { return }  // one reader
        let waiter = newWaiter()
        switch machine.waitForRoom(waiter, capacity: Self.capacity) {
        case nil: readerWaits = waiter
        case false?:
            precondition(ended, "no room before the end")
            answer(waiter)
        case true?: answer(waiter)
        }
    }

    mutating func watch() {
        let waiter = newWaiter()
        if let number = machine.whenEnded(waiter) {
            precondition(!ended, "a watch after the end waited")
            watches[number] = waiter
        } else {
            precondition(ended, "a watch before the end ran")
            answer(waiter)
        }
    }

    mutating func finish() {
        guard let owed = machine.finish(MessageInbox.Ending(code: 1000, reason: "", error: nil)) else {
            precondition(ended, "the first end owed nothing")
            return
        }
        precondition(!ended, "a second end owed something")
        ended = true
        if let receiver = owed.receiver {
            precondition(receiver == receiving?.waiter, "another receive was ended")
            answer(receiver)
            receiving = nil
        }
        if let room = owed.roomWaiter {
            precondition(room == readerWaits, "another reader was ended")
            answer(room)
            readerWaits = nil
        }
        precondition(owed.endWaiters.sorted() == watches.values.sorted(), "the end ran other watches")
        for waiter in owed.endWaiters { answer(waiter) }
        watches = [:]
    }
}

#if os(Linux)
    /// A Curl event loop's `CurlLoopLedger`, checked against a plain model: a transfer is found by its send and its
    /// handle while held and by neither after, a wrong transfer is never forgotten, a stop hands back exactly what was
    /// held, and every send a hand-over takes is handed over once, in the order it was let go, however many join it.
    struct LedgerRun {
        final class Transfer {}
        var ledger = CurlLoopLedger<Transfer, Int, Int>()
        var held: [Int: (transfer: Transfer, handle: Int)] = [:]
        var nextID = 1
        var nextWaiter = 1
        var letGo: [Int] = []
        var handed: [Int] = []
        var handingOver = false

        mutating func drive(_ bytes: inout Bytes) {
            while let byte = bytes.next() {
                let pick = Int(byte >> 3)
                switch byte % 6 {
                case 0:
                    guard !ledger.isStopped else { break }
                    let handle = pick % 8
                    guard !held.values.contains(where: { $0.handle == handle }) else { break }
                    let transfer = Transfer()
                    ledger.hold(transfer, id: nextID, handle: handle)
                    held[nextID] = (transfer, handle)
                    nextID += 1
                case 1:
                    // The next hop of a held transfer keeps its place.
                    guard !ledger.isStopped, let first = held.min(by: { $0.key < $1.key }) else { break }
                    ledger.hold(first.value.transfer, id: first.key, handle: first.value.handle)
                case 2:
                    let ids = held.keys.sorted()
                    guard !ids.isEmpty else { break }
                    let id = ids[pick % ids.count]
                    precondition(!ledger.forget(Transfer(), id: id), "a transfer not held was forgotten")
                    precondition(ledger.forget(held[id]!.transfer, id: id), "a held transfer was not forgotten")
                    held[id] = nil
                case 3:
                    let waiters = (0..<(pick % 3 + 1)).map { _ in
                        defer { nextWaiter += 1 }
                        return nextWaiter
                    }
                    letGo += waiters
                    let handsOver = ledger.admit(waiters)
                    precondition(handsOver == !handingOver, "a second hand-over started, or none")
                    if handsOver { handingOver = true }
                case 4:
                    guard handingOver else { break }
                    if let waiter = ledger.nextAdmitted() {
                        handed.append(waiter)
                    } else {
                        handingOver = false
                    }
                default:
                    if pick % 4 == 0 {
                        let ended = ledger.stop()
                        precondition(
                            ended.count == held.count
                                && held.values.allSatisfy { entry in ended.contains { $0 === entry.transfer } },
                            "a stop handed back other transfers than those held")
                        held = [:]
                    }
                }
                for (id, entry) in held {
                    precondition(ledger.transfer(id) === entry.transfer, "a held transfer was not found by its send")
                    precondition(ledger.transfer(handle: entry.handle) === entry.transfer, "nor by its handle")
                }
                precondition(ledger.transfers.count == held.count, "the ledger holds another number of transfers")
            }
            while handingOver {
                if let waiter = ledger.nextAdmitted() { handed.append(waiter) } else { handingOver = false }
            }
            precondition(handed == letGo, "handed over \(handed), let go \(letGo)")
        }
    }
#endif
