import Foundation

@testable import NetworkLayerOffline

/// A cache directory the inputs are written into, as files another process, a full disk or a backup left there.
private let folder: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-cache-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}()

/// The storage over that directory, keeping nothing in memory, so that every read goes to the file.
private let storage: CacheStorage = {
    do {
        return try CacheStorage(memoryCapacity: 0, directory: folder, diskCapacity: 64 << 20)
    } catch {
        fatalError("the scratch cache directory: \(error)")
    }
}()

private let key = "GET https://api.example.com/items"

/// The fields that carry credentials, written out here rather than taken from the package's own list, so that a
/// name dropped from that list shows.
private let credentialFields: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

/// One input, as a cache file: a file that does not decode is refused and removed, never half-used; one that does
/// decodes to a record that writes back to a file that decodes to it again; no credential field comes out of it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 1 else { return 0 }
    let bytes = Data(bytes: start, count: count)
    // The first byte picks the raw file or a well-framed one around the rest (JSON, then a body of its length).
    let mode = bytes[bytes.startIndex]
    let rest = bytes.dropFirst()
    let file: Data
    if mode & 1 == 0 {
        file = Data(rest)
    } else {
        let bodyLength = min(Int(mode >> 1), rest.count)
        // The file form around them, with a right length and checksum: the fuzzer reaches past the frame.
        file = CacheStorage.framed(metadata: Data(rest.dropLast(bodyLength)), body: Data(rest.suffix(bodyLength)))
    }
    let decoded = CacheStorage.decode(file)
    if let decoded {
        guard let again = CacheStorage.encode(decoded) else { preconditionFailure("a decoded record does not encode") }
        precondition(CacheStorage.decode(again) == decoded, "a record does not survive its file form")
        if case .response(let response) = decoded {
            precondition(
                !response.headers.keys.contains { credentialFields.contains($0.lowercased()) },
                "a credential came out of the cache")
        }
    }
    // Through the directory: the file is read as decoded, or removed.
    let path = folder.appendingPathComponent(CacheStorage.fileName(for: key))
    guard (try? file.write(to: path)) != nil else { return 0 }
    let read = storage.record(for: key)
    precondition(read == decoded, "the storage read the file otherwise")
    if read == nil {
        precondition(!FileManager.default.fileExists(atPath: path.path), "a file that does not decode was kept")
    }
    storage.remove(key)
    return 0
}

/// With `FUZZ_WRITE_SEEDS=<folder>`, writes seed inputs made by the cache's own encoder (a stored response, its
/// variants record; each raw and, after an odd first byte, as the framed form's JSON and body) and exits: how
/// Fuzz/Corpus/FuzzCacheFile was made.
func writeSeedsIfAsked() {
    guard let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return }
    let response = CachedResponse(
        url: URL(string: "https://api.example.com/items?page=2")!, status: 200, httpVersion: "HTTP/1.1",
        headers: ["Content-Type": "application/json", "ETag": "\"v1\"", "Vary": "Accept-Language"],
        storedAt: Date(timeIntervalSince1970: 1_765_000_000), initialAge: 3, lifetime: 60,
        variants: ["accept-language": "a1b2"], body: Data("[1,2,3]".utf8))
    let records: [String: CacheRecord] = ["response": .response(response), "varies": .variesOn(["accept-language"])]
    do {
        for (name, record) in records {
            guard let file = CacheStorage.encode(record) else { fatalError("\(name) does not encode") }
            try (Data([0]) + file).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
            // Framed: an odd first byte whose upper bits give the body's length, then the JSON and the body.
            let (metadata, body) = CacheStorage.split(record)
            let json = try JSONEncoder().encode(metadata)
            try (Data([UInt8(body.count << 1 | 1)]) + json + body).write(
                to: URL(fileURLWithPath: folder).appendingPathComponent(name + "-framed"))
        }
    } catch {
        fatalError("the seeds could not be written: \(error)")
    }
    exit(0)
}
