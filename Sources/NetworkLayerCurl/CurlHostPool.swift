import Foundation
@_spi(TransportKit) import NetworkLayerCore
import NetworkLayerSupport

/// Which sends to each host run, on which of ``CurlTransport``'s event loops, and which wait for a connection: one
/// value for the whole transport, tested without I/O.
///
/// A loop may open its share of ``CurlTransport/maximumConnectionsPerHost`` connections to a host
/// (``CurlLoopPlan``), and libcurl runs no more of the loop's sends to that host than that: a send libcurl had no
/// connection for would wait in libcurl's own queue, which parses its URL and looks through the host's connections
/// each time one comes free (measured at 64 concurrent sends with 8 connections a loop: two such attempts a request,
/// twice the URL parsing and about 12% more CPU per request than with a connection for each). The pool decides for
/// every loop at once: a new send runs on a loop with a free connection to its host (the least busy of them, the
/// first on a tie, so that sends one after another stay on one kept-alive connection), and waits only when every
/// connection to its host is busy, on every loop; it then runs on the first loop to free one, in the order the sends
/// came. (With a share per loop and a queue per loop, a send waited behind its own loop's slow requests while the
/// other loop's connections sat free.) A follow-up hop (a redirect, the same hop on a fresh connection) stays on its
/// loop, where its transfer is, and waits for a connection of that loop. A host whose replies come over HTTP/2 or
/// later multiplexes its sends on one connection a loop: once a reply's head says so, its sends run at once.
struct CurlHostPool<Item> {
    /// A send that waits: its id, what runs it, and the loop it must run on (`nil`: the first with a connection).
    struct Waiter {
        let id: Int
        let item: Item
        let loop: Int?
    }

    /// Where a new send runs.
    enum Placement: Equatable {
        /// On this loop, now; it is counted there.
        case run(onLoop: Int)
        /// Nowhere yet: every connection to its host is busy.
        case wait
        /// Nowhere: the transport was shut down (``close()``).
        case refused
    }

    /// The sends to one host that wait, first first: taken from the front without moving the rest (the taken part
    /// is dropped once it is half of the array).
    fileprivate struct Line {
        private var items: [Waiter] = []
        private var front = 0

        var count: Int { items.count - front }

        mutating func append(_ waiter: Waiter) { items.append(waiter) }

        /// Takes up to `wanted` waiters that may run on `loop`, first first.
        mutating func take(_ wanted: Int, for loop: Int) -> [Waiter] {
            var taken: [Waiter] = []
            var index = front
            while taken.count < wanted, index < items.count {
                let waiter = items[index]
                if waiter.loop == nil || waiter.loop == loop {
                    taken.append(waiter)
                    if index == front {
                        front += 1
                        index += 1
                    } else {
                        items.remove(at: index)
                    }
                } else {
                    index += 1
                }
            }
            compact()
            return taken
        }

        mutating func remove(_ id: Int) -> Waiter? {
            guard let index = items[front...].firstIndex(where: { $0.id == id }) else { return nil }
            return items.remove(at: index)
        }

        /// Every waiter, first first; the line is empty after.
        mutating func removeAll() -> [Waiter] {
            defer { self = Line() }
            return Array(items[front...])
        }

        private mutating func compact() {
            if front * 2 >= items.count {
                items.removeFirst(front)
                front = 0
            }
        }
    }

    /// How many connections to one host each loop may open (its share).
    let connectionsPerHost: [Int]
    /// How many sends to each host libcurl runs, on each loop.
    private var running: [String: [Int]] = [:]
    /// The sends to each host that wait, first first.
    private var waiting: [String: Line] = [:]
    /// The hosts whose last reply came over a protocol that multiplexes.
    private var multiplexing: Set<String> = []
    /// Where the pool's life is: it places sends until the transport stops, then never again.
    enum Lifecycle: Equatable {
        /// New sends are placed.
        case running
        /// The transport stopped (``close()``): a new send is refused.
        case closed
    }

    /// Where the pool's life is.
    private var lifecycle = Lifecycle.running
    /// Beyond this many hosts known to multiplex, the set starts again (they are learned again from their next reply).
    private static var multiplexingLimit: Int { 1024 }

    /// A pool over loops that may each open `connectionsPerHost[loop]` connections to a host (at least one, and one
    /// loop at least).
    init(connectionsPerHost: [Int]) {
        self.connectionsPerHost = connectionsPerHost.isEmpty ? [1] : connectionsPerHost.map { max(1, $0) }
    }

    // MARK: Events

    /// A new send `id` to `host`: the loop it runs on now, counted there, or ``Placement/wait`` until a loop frees a
    /// connection to `host` (``leave(_:fromLoop:multiplexes:)`` then hands it out). `loads` are the loops' sends, in
    /// loop order, to choose the least busy loop.
    mutating func place(_ id: Int, _ item: Item, to host: String, loads: some Sequence<Int>) -> Placement {
        guard lifecycle == .running else { return .refused }
        let counts = running[host] ?? zeros
        let multiplexes = multiplexing.contains(host)
        var chosen: Int?
        var fewest = Int.max
        for (loop, load) in zip(counts.indices, loads)
        where (multiplexes || counts[loop] < connectionsPerHost[loop]) && load < fewest {
            chosen = loop
            fewest = load
        }
        guard let chosen else {
            waiting[host, default: Line()].append(Waiter(id: id, item: item, loop: nil))
            return .wait
        }
        count(1, to: host, on: chosen)
        return .run(onLoop: chosen)
    }

    /// A follow-up hop of the send `id`, whose transfer is on `loop`, to `host`: whether it runs now (counted); if
    /// not, it waits for a connection of that loop.
    mutating func admit(_ id: Int, _ item: Item, to host: String, onLoop loop: Int) -> Bool {
        let count = running[host]?[loop] ?? 0
        guard count < connectionsPerHost[loop] || multiplexing.contains(host) else {
            waiting[host, default: Line()].append(Waiter(id: id, item: item, loop: loop))
            return false
        }
        self.count(1, to: host, on: loop)
        return true
    }

    /// A send to `host` running on `loop` left libcurl, its reply over a protocol that multiplexes or not (`nil`
    /// when no reply told): the waiting sends that run on `loop` now, counted there, first first.
    mutating func leave(_ host: String, fromLoop loop: Int, multiplexes: Bool?) -> [Waiter] {
        count(-1, to: host, on: loop)
        switch multiplexes {
        case true?: return learnMultiplexing(of: host, onLoop: loop)
        case false?: multiplexing.remove(host)
        case nil: break
        }
        return release(host, onLoop: loop)
    }

    /// A reply from `host` came over a protocol that multiplexes, on `loop`, while its send still runs (a stream can
    /// run for as long as its reader reads): every send to it that waits and may run on `loop` runs there now.
    mutating func learnMultiplexing(of host: String, onLoop loop: Int) -> [Waiter] {
        if !multiplexing.contains(host) {
            if multiplexing.count >= Self.multiplexingLimit { multiplexing = [] }
            multiplexing.insert(host)
        }
        return release(host, onLoop: loop)
    }

    /// Forgets a waiting send (it ended before its turn); returns it if it was waiting.
    mutating func withdraw(_ id: Int, from host: String) -> Waiter? {
        guard var line = waiting[host], let waiter = line.remove(id) else { return nil }
        waiting[host] = line.count == 0 ? nil : line
        return waiter
    }

    /// The transport stops: no new send is placed from now on, and every waiting send is taken out, to be answered.
    mutating func close() -> [Waiter] {
        lifecycle = .closed
        defer { waiting = [:] }
        return waiting.values.flatMap { line in
            var line = line
            return line.removeAll()
        }
    }

    // MARK: What the pool holds

    /// How many sends to `host` wait.
    func waitingCount(for host: String) -> Int { waiting[host]?.count ?? 0 }

    /// How many sends wait, to every host.
    var waitingCount: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// How many sends run, to every host, on every loop.
    var runningCount: Int { running.values.reduce(0) { $0 + $1.reduce(0, +) } }

    /// How many sends to `host` libcurl runs on `loop`.
    func runningCount(for host: String, onLoop loop: Int) -> Int { running[host]?[loop] ?? 0 }

    /// How many sends to `host` libcurl runs, on every loop.
    func runningCount(for host: String) -> Int { running[host]?.reduce(0, +) ?? 0 }

    // MARK: Keeping count

    private var zeros: [Int] { Array(repeating: 0, count: connectionsPerHost.count) }

    /// Adds `change` to the sends to `host` running on `loop`, in place. A host keeps its entry when none run (sends
    /// one after another would otherwise make it again each time); beyond ``hostLimit`` hosts, those with none
    /// running are forgotten. A count below zero is a send that left twice, or never came: it stops the process.
    private mutating func count(_ change: Int, to host: String, on loop: Int) {
        if change < 0, (running[host]?[loop] ?? 0) + change < 0 {
            preconditionFailure("\(#function) \(change) to \(host) on loop \(loop), running \(running[host] ?? [])")
        }
        if running.count >= Self.hostLimit, running[host] == nil {
            running = running.filter { $0.value.contains { $0 > 0 } }
        }
        let loops = connectionsPerHost.count
        running[host, default: Array(repeating: 0, count: loops)][loop] += change
    }

    /// How many hosts the pool keeps counts for, at most, beside those with sends running.
    private static var hostLimit: Int { 1024 }

    /// The waiting sends to `host` that may run on `loop` now, counted there, first first.
    private mutating func release(_ host: String, onLoop loop: Int) -> [Waiter] {
        guard var line = waiting[host] else { return [] }
        let count = running[host]?[loop] ?? 0
        let free = multiplexing.contains(host) ? line.count : max(0, connectionsPerHost[loop] - count)
        let released = line.take(free, for: loop)
        waiting[host] = line.count == 0 ? nil : line
        if !released.isEmpty { self.count(released.count, to: host, on: loop) }
        return released
    }
}

extension CurlHostPool: Sendable where Item: Sendable {}
extension CurlHostPool.Waiter: Sendable where Item: Sendable {}
extension CurlHostPool.Line: Sendable where Item: Sendable {}

extension CurlHostPool {
    /// The key a send's URL is pooled under: its scheme and authority (host and port) as written, in lower case. A
    /// host written two ways (with its default port and without) is two keys, whose sends libcurl's own limit still
    /// holds to the host's connections. (Read from the URL's text, which the transfer has at hand: asking `URL` for
    /// its parts decodes them, which cost about 1% of the CPU at 64 concurrent requests.)
    static func host(ofURL text: String) -> String {
        String(URLText.authorityPrefix(of: text)).lowercasedASCII
    }
}

/// The hosts whose replies came over a protocol that multiplexes, noted during libcurl's header callback (where no
/// send may be handed to libcurl) and given to the pool after it. Only whoever drives the loop touches it.
final class CurlMultiplexingNews {
    private var hosts: [String] = []

    /// Notes that a reply from `host` came over HTTP/2 or later.
    func note(_ host: String) {
        hosts.append(host)
    }

    /// The hosts noted since the last call, oldest first.
    func take() -> [String] {
        defer { hosts.removeAll(keepingCapacity: true) }
        return hosts
    }
}
