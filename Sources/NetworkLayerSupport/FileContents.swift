public import Foundation

/// The bytes of a file (empty for an empty file), or `nil` when it cannot be opened or read.
///
/// Used instead of `FileManager.contents(atPath:)`, which in FoundationEssentials (Swift 6.3.1) leaks a 4 KiB buffer
/// each time it reads an empty file.
public func fileContents(atPath path: String) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    do {
        return try handle.readToEnd() ?? Data()
    } catch {
        return nil
    }
}
