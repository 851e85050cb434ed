#if canImport(FoundationNetworking)
    // HTTPURLResponse lives in FoundationNetworking on Linux.
    import FoundationNetworking
#else
    import Foundation
#endif

extension HTTPURLResponse {
    /// The header fields as strings; on Linux `allHeaderFields` is typed `[AnyHashable: Any]`.
    var headerFields: [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in allHeaderFields {
            if let name = name as? String {
                fields[name] = value as? String ?? String(describing: value)
            }
        }
        return fields
    }
}
