import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension URLRequest {
    /// Whether the request has a field named `name`, in any case.
    func hasHeaderField(_ name: String) -> Bool {
        allHTTPHeaderFields?.keys.contains { HeaderFields.sameName($0, name) } ?? false
    }

    /// Sets the fields in one change, each replacing a field of the same name in any case, their names as given.
    ///
    /// On Linux, `setValue(_:forHTTPHeaderField:)` capitalizes the name through Foundation and compares it with every
    /// field already set through `NSString`, on each call: measured, a third of what adding two headers cost a small
    /// request. Values are not checked here: ``RequestRules`` checks every field once, before the transport.
    mutating func setHeaderFields(_ fields: some Sequence<(key: String, value: String)>) {
        var all = allHTTPHeaderFields ?? [:]
        for (name, value) in fields {
            if let existing = all.keys.first(where: { HeaderFields.sameName($0, name) }), existing != name {
                all.removeValue(forKey: existing)
            }
            all[name] = value
        }
        allHTTPHeaderFields = all
    }
}
