import Foundation
import NetworkLayerSupport

private let begin = "-----BEGIN CERTIFICATE-----"
private let end = "-----END CERTIFICATE-----"

/// The lines of `text` as PEM reads them: split at every line end (CR LF once).
private func lines(of text: String) -> [String] {
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
    return lines
}

/// A second reading of the same rules: the lines between armour lines joined and decoded as base64; and the same
/// text with every line outside the armour changed (reversed), which must yield the same certificates.
private func reference(_ text: String) -> (certificates: [Data], outsideChanged: String) {
    var changed: [String] = []
    var certificates: [Data] = []
    var inside: String?
    for raw in lines(of: text) {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line == begin {
            inside = ""
            changed.append(raw)
        } else if line == end {
            if let body = inside, let der = Data(base64Encoded: body) { certificates.append(der) }
            inside = nil
            changed.append(raw)
        } else if inside != nil {
            inside! += line
            changed.append(raw)
        } else {
            let reversed = String(String.UnicodeScalarView(raw.unicodeScalars.reversed()))
            let trimmed = reversed.trimmingCharacters(in: .whitespaces)
            changed.append(trimmed == begin || trimmed == end ? raw : reversed)
        }
    }
    return (certificates, changed.joined(separator: "\n"))
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
/// base64 of an armoured block, as a second reading finds it, and changing every line outside the armour changes
/// nothing), and what it yields armours back to the same list.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    let certificates = PEM.certificates(in: bytes)
    let (expected, outsideChanged) = reference(String(decoding: bytes, as: UTF8.self))
    precondition(
        certificates == expected, "PEM read \(certificates.count) certificates, the reference \(expected.count)")
    precondition(PEM.certificates(in: armoured(certificates)) == certificates, "the certificates do not armour back")
    precondition(
        PEM.certificates(in: Data(outsideChanged.utf8)) == certificates, "bytes outside the armour changed the result")
    return 0
}
