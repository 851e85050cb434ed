import Foundation

@testable import NetworkLayerCore
@testable import NetworkLayerTesting

/// The parts of a form made from the input: NUL-separated fields taken four at a time (name, filename, content type,
/// bytes), an empty filename or type meaning none.
private func parts(from fields: [Data]) -> [MultipartPart] {
    stride(from: 0, to: fields.count - fields.count % 4, by: 4).map { index in
        let text = { (bytes: Data) in String(decoding: bytes, as: UTF8.self) }
        let filename = text(fields[index + 1])
        let type = text(fields[index + 2])
        return MultipartPart(
            name: text(fields[index]), filename: filename.isEmpty ? nil : filename,
            contentType: type.isEmpty ? nil : type, data: fields[index + 3])
    }
}

/// One input, twice: as the body of a `multipart/form-data` request an app sent, which the parser takes or refuses
/// with its error, never a crash; and as the fields of a form that ``MultipartForm`` encodes, which the parser reads
/// back part for part (or the form refuses to encode, before anything is sent).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Data(bytes: start, count: count)
    _ = try? MultipartPart.parts(of: bytes, contentType: "multipart/form-data; boundary=fuzz-boundary")

    let expected = parts(from: bytes.split(separator: 0, omittingEmptySubsequences: false).map { Data($0) })
    var form = MultipartForm(boundary: "fuzz-boundary-7f3a")
    for part in expected {
        form.append(part.data, name: part.name, filename: part.filename, contentType: part.contentType)
    }
    guard let encoded = try? form.encoded() else { return 0 }
    guard let read = try? MultipartPart.parts(of: encoded, contentType: form.contentType) else {
        preconditionFailure("the parser refused a form the package encoded")
    }
    precondition(read.count == expected.count, "\(read.count) parts read of \(expected.count)")
    // Names travel as the HTML standard escapes them (`"`, CR, LF as %22, %0D, %0A), which a receiver cannot tell
    // from a name that had "%22" in it: a name comes back as that escaping, undone.
    let travelled = { (name: String) in MultipartParser.unescaped(MultipartForm.escaped(name)) }
    for (got, sent) in zip(read, expected) {
        precondition(got.data == sent.data, "a part's bytes changed")
        precondition(
            got.name == travelled(sent.name),
            "a name changed: \(sent.name.debugDescription) → \(got.name.debugDescription)")
        precondition(got.filename == sent.filename.map(travelled), "a filename changed")
        // Without a `%` nothing is ambiguous: the name comes back exactly, whatever the two functions above do.
        precondition(sent.name.contains("%") || got.name == sent.name, "a name without % changed")
        if let filename = sent.filename, !filename.contains("%") {
            precondition(got.filename == filename, "a filename without % changed")
        }
        // A field value's surrounding spaces and tabs are not part of it (RFC 9110, section 5.5).
        let type = sent.contentType?.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        precondition(got.contentType == type, "a content type changed: \(String(describing: got.contentType))")
    }
    return 0
}
