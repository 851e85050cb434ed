/// How ``URLSessionTransport`` answers an authentication challenge, decided from its method alone: a value, shared
/// and tested on every platform, though only Apple's URLSession asks about server trust and other methods
/// (FoundationNetworking asks only after a whole 401, and is answered in the session delegate).
enum ChallengeAnswer: Equatable {
    /// Server trust, evaluated by the system as usual.
    case systemTrust
    /// Server trust, evaluated with the transport's extra authorities besides the system's, off the delegate
    /// queue: the evaluation may fetch intermediate certificates or revocation status over the network.
    case trustWithExtraAuthorities
    /// Any other challenge (Basic, Digest, NTLM, Negotiate, a client certificate) is refused without credentials:
    /// the transport never answers one with credentials of its own, or of the system's (a keychain identity, the
    /// user's Kerberos ticket). The 401 comes back as the response, its `WWW-Authenticate` and body intact.
    case refuse

    /// The value of Foundation's `NSURLAuthenticationMethodServerTrust`, which FoundationNetworking declares
    /// unavailable: spelled out so that the rule compiles, and is tested, on Linux too.
    static let serverTrustMethod = "NSURLAuthenticationMethodServerTrust"

    /// The answer to a challenge of `method` (`NSURLAuthenticationMethod…`).
    static func to(method: String, hasExtraAuthorities: Bool) -> ChallengeAnswer {
        guard method == serverTrustMethod else { return .refuse }
        return hasExtraAuthorities ? .trustWithExtraAuthorities : .systemTrust
    }
}
