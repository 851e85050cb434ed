#if canImport(Security) && !canImport(FoundationNetworking)
    import Dispatch
    import Foundation
    import Security

    /// Evaluates a server's certificate chain with extra trusted authorities (Apple platforms only: FoundationNetworking
    /// asks no delegate about server trust).
    enum ServerTrust {
        /// Evaluates on a global queue, never on the session's delegate queue, which every task of the transport
        /// shares: `SecTrustEvaluateWithError` may block on network fetches (intermediate certificates,
        /// revocation). `done` gets the credential to answer with when the chain is trusted, `nil` when not.
        static func evaluate(_ trust: SecTrust, anchors: [Data], done: @escaping @Sendable (URLCredential?) -> Void) {
            let handOff = TrustHandOff(trust: trust)
            DispatchQueue.global(qos: .userInitiated).async {
                done(evaluate(handOff.trust, anchors: anchors) ? URLCredential(trust: handOff.trust) : nil)
            }
        }

        /// A server trust handed to the queue that evaluates it.
        ///
        /// Why `@unchecked Sendable` is sound: the trust is stored before the work is queued and only read by that
        /// one block afterwards; the delegate that got it from URLSession does not touch it again until `done`.
        private final class TrustHandOff: @unchecked Sendable {
            let trust: SecTrust
            init(trust: SecTrust) { self.trust = trust }
        }

        /// Whether the chain is trusted when the authorities in `anchors` (DER) are trusted besides the system's.
        private static func evaluate(_ trust: SecTrust, anchors: [Data]) -> Bool {
            let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
            guard !certificates.isEmpty,
                SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess
            else { return false }
            var error: CFError?
            return SecTrustEvaluateWithError(trust, &error)
        }
    }
#endif
