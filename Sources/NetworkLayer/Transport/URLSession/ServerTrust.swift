#if canImport(Security) && !canImport(FoundationNetworking)
    import Foundation
    import Security

    /// Evaluates a server's certificate chain with extra trusted authorities (Apple platforms only: FoundationNetworking
    /// asks no delegate about server trust).
    enum ServerTrust {
        /// Whether the chain is trusted when the authorities in `anchors` (DER) are trusted besides the system's.
        static func evaluate(_ trust: SecTrust, anchors: [Data]) -> Bool {
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
