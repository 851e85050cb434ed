/// The oldest TLS version a transport accepts.
///
/// TLS 1.0 and 1.1 are deprecated (RFC 8996) and never offered: the choice is between 1.2 and 1.3.
public enum TLSVersion: Sendable, Hashable, Comparable {
    /// TLS 1.2 or later: the default.
    case tls12
    /// TLS 1.3 only.
    case tls13
}
