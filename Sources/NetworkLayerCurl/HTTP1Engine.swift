import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import CZlib
    import Foundation
    import FoundationNetworking
    import Glibc
    import Synchronization

    /// CurlTransport's own HTTP/1.1 engine as the transport sends through it: which requests it takes, its loops,
    /// and a send's redirect chain from hop to hop.
    ///
    /// It takes a request that goes over plain `http` to a numeric address (`127.0.0.1`, `10.0.0.7`, `[::1]`), with
    /// its body in memory, no credentials in its URL and no `Accept-Encoding` of its own (libcurl decodes what the
    /// user asks for), when the environment names no proxy for `http` (read once, when the transport is made);
    /// everything else (TLS, HTTP/2, names to resolve, proxies, uploads, streams) goes to libcurl. A redirect the
    /// engine cannot take goes on over libcurl with the same chain.
    final class HTTP1Engine: Sendable {
        private let loops: [HTTP1Loop]
        private let redirectPolicy: RedirectPolicy
        /// What the engine asks servers for: the codings it undoes, or nil without zlib.
        private let acceptEncoding: String?
        /// Whether the environment names a proxy for `http`: then libcurl takes every request.
        private let proxied: Bool
        /// How many hops the engine has taken, for tests.
        let hops = Atomic<Int>(0)

        /// The engine's loops, one per share of `rules`' connections per host in `plan`.
        init(
            plan: CurlLoopPlan,
            rules: CurlTransferRules,
            environment: [String: String]
        ) throws(CurlTransport.Unavailable) {
            var loops: [HTTP1Loop] = []
            do {
                for connections in plan.connectionsPerHost {
                    loops.append(
                        try HTTP1Loop(
                            connectionsPerEndpoint: connections, maximumResponseSize: rules.maximumResponseSize,
                            maximumHeaderSize: rules.maximumHeaderSize))
                }
            } catch {
                for loop in loops { loop.shutDown() }
                throw error
            }
            self.loops = loops
            redirectPolicy = rules.redirectPolicy
            acceptEncoding = nl_zlib_load() == 1 ? "gzip, deflate" : nil
            proxied = Self.namesProxy(environment)
        }

        /// Stops the loops: every send not yet answered is answered `.cancelled`.
        func shutDown() {
            for loop in loops { loop.shutDown() }
        }

        /// Whether `environment` names a proxy that libcurl would use for an `http` URL: `http_proxy` (lowercase
        /// only, as libcurl reads it), `all_proxy` or `ALL_PROXY`, not empty.
        static func namesProxy(_ environment: [String: String]) -> Bool {
            ["http_proxy", "all_proxy", "ALL_PROXY"].contains { !(environment[$0] ?? "").isEmpty }
        }

        /// Where the engine sends `request`, or nil when libcurl must.
        func endpoint(for request: URLRequest) -> HTTP1Endpoint? {
            proxied ? nil : Self.endpoint(for: request)
        }

        /// Where the engine would send `request` (checked by `RequestRules`), or nil when libcurl must: see the type's
        /// documentation.
        static func endpoint(for request: URLRequest) -> HTTP1Endpoint? {
            guard request.httpBodyStream == nil, let url = request.url, let scheme = url.scheme,
                scheme.utf8.count == 4, scheme.lowercased() == "http", url.user == nil, url.password == nil,
                var host = url.host, !host.isEmpty
            else { return nil }
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard isNumericAddress(host) else { return nil }
            if let fields = request.allHTTPHeaderFields,
                fields.keys.contains(where: { HeaderFields.sameName($0, "Accept-Encoding") })
            {
                return nil
            }
            return HTTP1Endpoint(address: host, port: url.port ?? 80)
        }

        /// Whether `host` is an IPv4 address in dotted-decimal form or an IPv6 address, as `inet_pton` reads them.
        private static func isNumericAddress(_ host: String) -> Bool {
            var address = in6_addr()
            return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        }

        /// The loop for the next send: the least busy one.
        func nextLoop() -> HTTP1Loop {
            loops[CurlLoopPlan.loop(forNextSendAmong: loops.lazy.map(\.load))]
        }

        /// Starts the send `id` of `request` to `endpoint` on `loop` (which takes every hop the engine takes, so that
        /// cancelling `id` there reaches them), its outcome ending `state`; a redirect to a hop the engine does not
        /// take goes to `libcurl` with the chain so far.
        func start(
            _ request: URLRequest,
            at endpoint: HTTP1Endpoint,
            on loop: HTTP1Loop,
            id: Int,
            state: Locked<SendState<Int, CurlReply>>,
            libcurl: @escaping @Sendable (RedirectChain) -> Void
        ) {
            send(
                Hop(id: id, chain: RedirectChain(original: request), state: state, libcurl: libcurl, loop: loop),
                to: endpoint)
        }

        /// One send from hop to hop: what each hop's answer needs.
        private struct Hop: Sendable {
            let id: Int
            var chain: RedirectChain
            let state: Locked<SendState<Int, CurlReply>>
            let libcurl: @Sendable (RedirectChain) -> Void
            /// The loop that takes every hop the engine takes.
            let loop: HTTP1Loop
        }

        private func send(_ hop: Hop, to endpoint: HTTP1Endpoint) {
            let request = hop.chain.current
            let method = request.httpMethod ?? "GET"
            let body = request.httpBody ?? Data()
            guard let url = request.url,
                let head = HTTP1RequestHead(
                    request, method: method, bodyLength: body.count, acceptEncoding: acceptEncoding)
            else {
                return SendState.end(
                    hop.state, with: .failure(NetworkError.invalidRequest(.url, reason: "the request has no host")),
                    workFinished: true, cancel: { _ in })
            }
            hops.add(1, ordering: .relaxed)
            hop.loop.send(
                HTTP1Job(
                    id: hop.id, endpoint: endpoint, url: url, head: head, body: body,
                    answer: { [self] result in answered(hop, result) },
                    isAbandoned: { [state = hop.state] in state.withLock { $0.hasEnded } }))
        }

        /// Acts on a hop's answer, on its loop's thread: the send ends, or its next hop starts.
        private func answered(_ hop: Hop, _ result: Result<CurlReply, NetworkError>) {
            guard case .success(let reply) = result else {
                return SendState.end(hop.state, with: result.mapError { $0 }, workFinished: true, cancel: { _ in })
            }
            var next = hop
            switch next.chain.decide(
                status: reply.1.statusCode, location: reply.1.value(forHTTPHeaderField: "Location"),
                policy: redirectPolicy)
            {
            case .deliver:
                SendState.end(hop.state, with: .success(reply), workFinished: true, cancel: { _ in })
            case .fail(let error):
                SendState.end(hop.state, with: .failure(error), workFinished: true, cancel: { _ in })
            case .follow(let request):
                guard hop.state.withLock({ $0.run(hop.id) }) else { return }
                if let endpoint = endpoint(for: request) {
                    send(next, to: endpoint)
                } else {
                    hop.libcurl(next.chain)
                }
            }
        }
    }
#endif
