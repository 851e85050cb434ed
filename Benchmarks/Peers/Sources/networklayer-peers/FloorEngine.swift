// The floor (`--floor`): the least an HTTP/1.1 keep-alive client written in Swift does for the benchmark's request,
// so that the figures say how much of a side's cost is its engine and how much is the path above it. Not a client:
// no deadline, redirect, limit, metric, chunked body, error recovery or name lookup; it reads one Content-Length
// response a connection at a time from a server that never closes (the nginx of Benchmarks/README.md, with
// `keepalive_requests 1000000`). Linux on x86-64 only (epoll, and its packed event layout there).
#if os(Linux) && arch(x86_64)
    import Foundation
    import Glibc
    import NetworkLayer
    @_spi(TransportKit) import NetworkLayerCore
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Two epoll loops with up to 32 connections each to one loopback port; a request is a task's continuation and
    /// the request's bytes, built for each request.
    final class FloorEngine: Sendable {
        private let loops: [FloorLoop]
        private let turn = Atomic<Int>(0)

        init(port: UInt16) {
            loops = (0..<2).map { _ in FloorLoop(port: port, limit: 32) }
        }

        /// Sends a GET and returns the status and the body.
        func get(_ url: URL, headers: [String: String]) async throws -> (Int, Data) {
            var text = "GET \(url.path) HTTP/1.1\r\nHost: \(url.host ?? ""):\(url.port ?? 80)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "\r\n"
            let request = Array(text.utf8)
            let loop = loops[turn.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
            return try await withUnsafeThrowingContinuation { loop.submit(request, $0) }
        }
    }

    /// The floor's error: the server closed a connection (which the floor does not recover from).
    struct FloorClosed: Error {}

    // epoll is not in Swift's Glibc module: the three calls, declared here (integers and pointers, which Swift and C
    // pass alike on x86-64). An event there is 12 packed bytes: a UInt32 of flags, then 8 bytes of data.
    @_silgen_name("epoll_create1") private func floorEpollCreate(_ flags: Int32) -> Int32
    @_silgen_name("epoll_ctl")
    private func floorEpollControl(_ set: Int32, _ op: Int32, _ fd: Int32, _ event: UnsafeMutableRawPointer) -> Int32
    @_silgen_name("epoll_wait")
    private func floorEpollWait(_ set: Int32, _ events: UnsafeMutableRawPointer, _ max: Int32, _ timeout: Int32)
        -> Int32

    // Safe to share: `buffers` is read and written only on the loop's own thread (in `run`); the rest is immutable or
    // behind `state`'s mutex.
    private final class FloorLoop: @unchecked Sendable {
        typealias Waiter = UnsafeContinuation<(Int, Data), any Error>
        struct State {
            var idle: [Int32] = []
            var waiting: [Int32: Waiter] = [:]
            var queue: [([UInt8], Waiter)] = []
            var open = 0
        }
        private let set = floorEpollCreate(0)
        private let port: UInt16
        private let limit: Int
        private let state = Mutex(State())
        private var buffers: [[UInt8]] = Array(repeating: [], count: 4096)

        init(port: UInt16, limit: Int) {
            self.port = port
            self.limit = limit
            Thread { self.run() }.start()  // the loop lives as long as the process
        }

        /// Sends `request` on an idle connection from the caller's thread, or on a new one, or queues it.
        func submit(_ request: [UInt8], _ waiter: Waiter) {
            enum Step {
                case send(Int32)
                case open, queued
            }
            let step: Step = state.withLock { state in
                if let fd = state.idle.popLast() {
                    state.waiting[fd] = waiter
                    return .send(fd)
                }
                guard state.open < limit else {
                    state.queue.append((request, waiter))
                    return .queued
                }
                state.open += 1
                return .open
            }
            switch step {
            case .send(let fd): write(request, to: fd)
            case .open:
                let fd = connectToLoopback()
                state.withLock { $0.waiting[fd] = waiter }
                var event = [UInt8](repeating: 0, count: 12)
                event[0] = 1  // EPOLLIN
                withUnsafeBytes(of: fd) { event.replaceSubrange(4..<8, with: $0) }
                _ = event.withUnsafeMutableBytes { floorEpollControl(set, 1, fd, $0.baseAddress!) }  // EPOLL_CTL_ADD
                write(request, to: fd)
            case .queued: break
            }
        }

        private func write(_ request: [UInt8], to fd: Int32) {
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        private func connectToLoopback() -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return fd
        }

        /// The loop: reads what arrived, and hands each complete response to its waiter.
        private func run() {
            var events = [UInt8](repeating: 0, count: 12 * 64)
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = events.withUnsafeMutableBytes { floorEpollWait(set, $0.baseAddress!, 64, -1) }
                for index in 0..<max(0, Int(count)) {
                    let fd = events.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12 * index + 4, as: Int32.self) }
                    let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if received < 0 && errno == EAGAIN { continue }
                    guard received > 0 else {
                        close(fd)
                        state.withLock { $0.waiting.removeValue(forKey: fd) }?.resume(throwing: FloorClosed())
                        continue
                    }
                    buffers[Int(fd)].append(contentsOf: chunk[0..<received])
                    guard let (status, body) = Self.response(in: &buffers[Int(fd)]) else { continue }
                    var next: [UInt8]?
                    let waiter = state.withLock { state in
                        let waiter = state.waiting.removeValue(forKey: fd)
                        if state.queue.isEmpty {
                            state.idle.append(fd)
                        } else {
                            let (request, queued) = state.queue.removeFirst()
                            state.waiting[fd] = queued
                            next = request
                        }
                        return waiter
                    }
                    if let next { write(next, to: fd) }
                    waiter?.resume(returning: (status, body))
                }
            }
        }

        /// The status and body of the complete response at the start of `buffer` (then removed from it), or nil.
        private static func response(in buffer: inout [UInt8]) -> (Int, Data)? {
            let found = buffer.withUnsafeBufferPointer { bytes -> (Int, Data, Int)? in
                var end = 3
                while end < bytes.count
                    && !(bytes[end] == 10 && bytes[end - 1] == 13 && bytes[end - 2] == 10 && bytes[end - 3] == 13)
                {
                    end += 1
                }
                guard end < bytes.count, end > 12 else { return nil }
                end += 1
                let status = (Int(bytes[9]) - 48) * 100 + (Int(bytes[10]) - 48) * 10 + Int(bytes[11]) - 48
                var length = 0
                var line = 0
                while line < end {
                    var stop = line
                    while stop < end && bytes[stop] != 10 { stop += 1 }
                    // "Content-Length:" in any case: its first letter, its ninth and its colon.
                    if stop - line > 15 && bytes[line] | 0x20 == UInt8(ascii: "c")
                        && bytes[line + 8] | 0x20 == UInt8(ascii: "l") && bytes[line + 14] == UInt8(ascii: ":")
                    {
                        var digit = line + 15
                        while digit < stop && bytes[digit] == 32 { digit += 1 }
                        while digit < stop && bytes[digit] >= 48 && bytes[digit] <= 57 {
                            length = length * 10 + Int(bytes[digit]) - 48
                            digit += 1
                        }
                    }
                    line = stop + 1
                }
                guard bytes.count >= end + length else { return nil }
                return (status, Data(bytes[end..<end + length]), end + length)
            }
            guard let (status, body, used) = found else { return nil }
            buffer.removeFirst(used)
            return (status, body)
        }
    }

    /// The floor as a third party's `Transport`: `Network` runs it in a task raced against the deadline, and it
    /// builds an `HTTPURLResponse` (with the two fields the floor keeps).
    struct FloorTransport: Transport {
        let engine: FloorEngine

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            guard let url = request.url else { throw URLError(.badURL) }
            let (status, body) = try await engine.get(url, headers: request.allHTTPHeaderFields ?? [:])
            let fields = ["Content-Type": "application/json", "Content-Length": "\(body.count)"]
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
            else { throw URLError(.badServerResponse) }
            return (body, response)
        }
    }

    /// The floor on the path the package's own transports take (the transport kit's `DeadlineKeepingTransport`): no
    /// race task, and the head handed over as parts, an `HTTPURLResponse` built only if asked for.
    struct FloorKitTransport: DeadlineKeepingTransport {
        let engine: FloorEngine

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            try await FloorTransport(engine: engine).send(request)
        }

        func send(checked request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            try await FloorTransport(engine: engine).send(request)
        }

        func receive(checked request: URLRequest) async throws -> (Data, ResponseHead) {
            guard let url = request.url else { throw URLError(.badURL) }
            let (status, body) = try await engine.get(url, headers: request.allHTTPHeaderFields ?? [:])
            let fields = [("Content-Type", "application/json"), ("Content-Length", "\(body.count)")]
            return (body, ResponseHead(url: url, statusCode: status, httpVersion: "HTTP/1.1", fields: fields))
        }
    }

    /// The floor's four sides: the engine alone (decoding as the AsyncHTTPClient sides do), as a third party's
    /// transport, on the package's own transports' path, and that path with the app's two middleware.
    func floorSides(base: URL, small: URL, route: SmallRoute) -> [Side] {
        let engine = FloorEngine(port: UInt16(base.port ?? 80))
        let thirdParty = Network(transport: FloorTransport(engine: engine))
        let kit = Network(transport: FloorKitTransport(engine: engine))
        let kitApp = Network(transport: FloorKitTransport(engine: engine), middleware: appPath())
        return [
            Side(name: "Floor engine alone") {
                let (status, body) = try await engine.get(small, headers: appHeaders)
                guard status == 200 else { throw PeerError(description: "floor: \(status)") }
                _ = try JSONDecoder().decode(Profile.self, from: body)
            },
            Side(name: "Floor, third party") { let _: Profile = try await thirdParty.send(route) },
            Side(name: "Floor, kit path") { let _: Profile = try await kit.send(route) },
            Side(name: "Floor, kit app path") { let _: Profile = try await kitApp.send(SmallRoute(url: small)) },
        ]
    }
#endif
