import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Glibc

    /// The check a kept-alive connection passes before libcurl sends a request on it: nothing may be waiting on it.
    ///
    /// libcurl 7.88 reuses an idle HTTP/1.1 connection on which bytes have arrived since its last response (it only
    /// looks for a close), and would read them as the response to the next request: a server, or anything between,
    /// could answer a request before it was sent. libcurl 8.0 added such a check, but its newest sources skip it for a
    /// connection used within the last second, so this one stays whatever the version. Over TLS, what waits
    /// may also be records that are no response at all (a TLS 1.3 session ticket, a key update): OpenSSL takes those,
    /// and the connection stays in use. On HTTP/2, frames arrive at any time and each response names its stream, so
    /// nothing is checked.
    enum CurlConnectionCheck {
        /// Whether the reused connection at `socket` may carry the request of `easy`; called from libcurl's
        /// pre-request callback, where the connection is attached to `easy`.
        static func mayCarryRequest(_ easy: CurlEasyHandle, socket: Int32, overTLS: Bool) -> Bool {
            switch waitingInput(at: socket) {
            case .nothing: return true
            case .closedOrFailed: return false
            case .bytes where !overTLS: return false
            case .bytes:
                switch Int(nl_curl_tls_idle_input(easy.pointer, socket)) {
                case NLCURL_TLS_IDLE_DATA: return false
                // Not OpenSSL: a ticket cannot be told from a response, nor HTTP/1.1 from HTTP/2; libcurl's own
                // rule (reuse) stands.
                default: return true
                }
            }
        }

        enum Input {
            case nothing
            case bytes
            case closedOrFailed
        }

        /// What waits at the socket, without reading it.
        static func waitingInput(at socket: Int32) -> Input {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return .nothing }
            guard descriptor.revents & Int16(POLLERR | POLLNVAL) == 0 else { return .closedOrFailed }
            var byte: UInt8 = 0
            let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if peeked > 0 { return .bytes }
            if peeked == 0 { return .closedOrFailed }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .nothing : .closedOrFailed
        }
    }
#endif
