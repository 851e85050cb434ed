/// The opening handshake's fields (RFC 6455 §4.1): what the client adds to its request, and the check of the server's
/// `101 Switching Protocols` answer.
package struct WebSocketHandshake: Sendable {
    /// The nonce this handshake sends.
    package let key: WebSocketHandshakeKey
    /// The subprotocols the client offers, most preferred first.
    package let protocols: [String]
    /// The extensions the client offers, as `Sec-WebSocket-Extensions` values (`permessage-deflate; …`).
    package let extensions: [String]

    package init(key: WebSocketHandshakeKey, protocols: [String] = [], extensions: [String] = []) {
        self.key = key
        self.protocols = protocols
        self.extensions = extensions
    }

    /// What the server agreed to.
    package struct Agreement: Sendable, Equatable {
        /// The subprotocol the server chose, if any.
        package var subprotocol: String?
        /// The extensions the server accepted, each with its parameters, in its order.
        package var extensions: [String]
    }

    /// The header fields the handshake request carries, besides the route's own.
    package var requestFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key.value),
            ("Sec-WebSocket-Version", "13"),
        ]
        if !protocols.isEmpty { fields.append(("Sec-WebSocket-Protocol", protocols.joined(separator: ", "))) }
        if !extensions.isEmpty { fields.append(("Sec-WebSocket-Extensions", extensions.joined(separator: ", "))) }
        return fields
    }

    /// Checks the fields of a 101 answer (RFC 6455 §4.1, the client's checks 2–6).
    ///
    /// - Parameter value: The value of a header field by name, any case; several fields of one name joined with
    ///   commas.
    /// - Throws: ``WebSocketHandshakeFailure`` naming the check that failed: no `Upgrade: websocket`, no
    ///   `Connection: Upgrade`, a `Sec-WebSocket-Accept` that is not this key's proof, an extension or a subprotocol
    ///   the client did not offer.
    package func check(_ value: (String) -> String?) throws(WebSocketHandshakeFailure) -> Agreement {
        guard Self.tokens(of: value("Upgrade")).contains("websocket") else {
            throw WebSocketHandshakeFailure(reason: "the answer has no Upgrade: websocket")
        }
        guard Self.tokens(of: value("Connection")).contains("upgrade") else {
            throw WebSocketHandshakeFailure(reason: "the answer has no Connection: Upgrade")
        }
        let accept = value("Sec-WebSocket-Accept")?.trimmingSpaces
        guard accept == key.expectedAccept else {
            throw WebSocketHandshakeFailure(
                reason: "Sec-WebSocket-Accept is \(accept.map { "\"\($0)\"" } ?? "missing"), not this key's proof")
        }
        let offered = Set(extensions.compactMap { Self.extensionName(of: $0) })
        var accepted: [String] = []
        for item in Self.list(value("Sec-WebSocket-Extensions")) {
            guard let name = Self.extensionName(of: item), offered.contains(name) else {
                throw WebSocketHandshakeFailure(reason: "the server chose the extension \"\(item)\", not offered")
            }
            accepted.append(item)
        }
        var subprotocol: String?
        if let chosen = value("Sec-WebSocket-Protocol")?.trimmingSpaces, !chosen.isEmpty {
            guard protocols.contains(chosen) else {
                throw WebSocketHandshakeFailure(reason: "the server chose the subprotocol \"\(chosen)\", not offered")
            }
            subprotocol = chosen
        }
        return Agreement(subprotocol: subprotocol, extensions: accepted)
    }

    /// The comma-separated items of a field's value, trimmed, empty ones left out.
    static func list(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// The lowercased tokens of a comma-separated field.
    static func tokens(of value: String?) -> [String] {
        list(value).map { $0.lowercased() }
    }

    /// An extension's name: what comes before its first parameter, lowercased.
    static func extensionName(of item: String) -> String? {
        let name = item.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map {
            String($0).trimmingSpaces.lowercased()
        }
        return name?.isEmpty == false ? name : nil
    }
}

/// Why a server's 101 answer is not a WebSocket handshake the client can accept.
package struct WebSocketHandshakeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { "WebSocket handshake failed: \(reason)" }
}

extension String {
    /// The string without spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) ?? first
        return String(self[first...last])
    }
}
