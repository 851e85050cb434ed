import Foundation
import NetworkLayerSupport

/// A second reading of the same rules, written another way: the armour lines found by position in the text, the
/// lines between them joined and decoded as base64.
private func reference(_ text: String) -> [Data] {
    let begin = "-----BEGIN CERTIFICATE-----"
    let end = "-----END CERTIFICATE-----"
    var lines: [String] = []
    var current = ""
    var previousWasCR = false
    for scalar in text.unicodeScalars {
        // The same line ends as Swift's `isNewline`: LF, VT, FF, CR (CR LF once), NEL, LS, PS.
        if [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(scalar.value) {
            if !(scalar.value == 0x0A && previousWasCR) || !current.isEmpty { lines.append(current) }
            current = ""
            previousWasCR = scalar.value == 0x0D
            continue
        }
        previousWasCR = false
        current.unicodeScalars.append(scalar)
    }
    lines.append(current)
    var certificates: [Data] = []
    var inside: String?
    for raw in lines {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line == begin {
            inside = ""
        } else if line == end {
            if let body = inside, let der = Data(base64Encoded: body) { certificates.append(der) }
            inside = nil
        } else if inside != nil {
            inside! += line
        }
    }
    return certificates
}

/// The PEM file of `certificates`, as a tool writes it: 64 characters a line inside the armour.
private func armoured(_ certificates: [Data]) -> Data {
    var text = ""
    for der in certificates {
        text += "-----BEGIN CERTIFICATE-----\n"
        var base64 = Substring(der.base64EncodedString())
        while !base64.isEmpty {
            text += base64.prefix(64) + "\n"
            base64 = base64.dropFirst(64)
        }
        text += "-----END CERTIFICATE-----\n"
    }
    return Data(text.utf8)
}

/// One input, as a PEM file of trusted authorities: no certificate from bytes outside the armour (every one is the
/// base64 of an armoured block, as a second reading finds it), and what it yields armours back to the same list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let certificates = PEM.certificates(in: bytes)
    let expected = reference(String(decoding: bytes, as: UTF8.self))
    precondition(
        certificates == expected, "PEM read \(certificates.count) certificates, the reference \(expected.count)")
    precondition(PEM.certificates(in: armoured(certificates)) == certificates, "the certificates do not armour back")
    return 0
}
