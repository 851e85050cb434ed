import NetworkLayerCore

extension [String: String] {
    /// The value of a header field, whatever the case of its name (``HeaderFields``' rule).
    func value(forHeaderField name: String) -> String? {
        first { HeaderFields.sameName($0.key, name) }?.value
    }

    /// Sets a header field under `name`, first removing it under any other case of that name; `nil` only removes it.
    mutating func setValue(_ value: String?, forHeaderField name: String) {
        for key in keys where HeaderFields.sameName(key, name) { self[key] = nil }
        if let value { self[name] = value }
    }
}
