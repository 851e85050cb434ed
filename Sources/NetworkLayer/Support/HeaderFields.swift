import Foundation

extension [String: String] {
    /// The value of a header field, whatever the case of its name.
    func value(forHeaderField name: String) -> String? {
        first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets a header field under `name`, first removing it under any other case of that name; `nil` only removes it.
    mutating func setValue(_ value: String?, forHeaderField name: String) {
        for key in keys where key.caseInsensitiveCompare(name) == .orderedSame { self[key] = nil }
        if let value { self[name] = value }
    }
}
