public import Foundation

/// Reads PEM files: the base64 blocks between `-----BEGIN CERTIFICATE-----` and `-----END CERTIFICATE-----`.
public enum PEM {
    /// The DER bytes of every certificate in `data`, in order; blocks that do not decode are skipped.
    public static func certificates(in data: Data) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        var certificates: [Data] = []
        var base64: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let body = base64, let der = Data(base64Encoded: body) { certificates.append(der) }
                base64 = nil
            } else if base64 != nil {
                base64? += line
            }
        }
        return certificates
    }
}
