import Foundation

#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension URLRequest {
    /// The `Content-Type` a transport adds to a body that names none, so that neither URLSession's nor libcurl's
    /// form default is ever sent: see ``RequestBody``. `nil` when there is no body or it already has a type.
    var contentTypeForUnlabeledBody: String? {
        guard let body = httpBody, !body.isEmpty, value(forHTTPHeaderField: "Content-Type") == nil else { return nil }
        return RequestBody.inferredContentType(of: body)
    }
}
