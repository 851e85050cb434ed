#if canImport(FoundationNetworking)
    // URLRequest lives in FoundationNetworking on Linux.
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension URLRequest {
    /// Whether the request has a field named `name`, in any case.
    public func hasHeaderField(_ name: String) -> Bool {
        allHTTPHeaderFields?.keys.contains { HeaderFields.sameName($0, name) } ?? false
    }

    /// The request with `fields` set, each replacing a field of the same name in any case, their names as given.
    ///
    /// On Linux, `setValue(_:forHTTPHeaderField:)` capitalizes the name through Foundation and compares it with every
    /// field already set through `NSString`, on each call, and changing a request that is shared (as every request a
    /// middleware gets is) copies it through `NSMutableURLRequest`, which normalizes the method through `NSString`
    /// again: measured, most of what adding two headers cost a small request. There the request is made anew from its
    /// properties, all of which FoundationNetworking has (its copy sets the same ones); on Apple platforms, whose
    /// requests carry more, it is copied. Values are not checked here: ``Network`` checks every field once, before
    /// the transport (check fields you take from elsewhere with ``HeaderFields/validate(_:)`` first, since Foundation
    /// drops a value with a line break as it is set).
    ///
    /// A middleware that adds headers sets them all in one call:
    ///
    /// ```swift
    /// let signed = request.settingHeaderFields([(key: "X-Signature", value: signature)])
    /// ```
    @inlinable public func settingHeaderFields(_ fields: some Sequence<(key: String, value: String)>) -> URLRequest {
        // Inlined into the middleware module that calls it, so that its sequence is walked specialized; the work is
        // done once, on an array.
        settingHeaderFields(list: Array(fields))
    }

    /// ``settingHeaderFields(_:)`` on an array of fields.
    @usableFromInline func settingHeaderFields(list fields: [(key: String, value: String)]) -> URLRequest {
        var all = allHTTPHeaderFields ?? [:]
        for (name, value) in fields {
            if let existing = all.keys.first(where: { HeaderFields.sameName($0, name) }), existing != name {
                all.removeValue(forKey: existing)
            }
            all[name] = value
        }
        guard Self.isRemadeToChange, let url else {
            var changed = self
            changed.allHTTPHeaderFields = all
            return changed
        }
        var remade = URLRequest(url: url, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
        remade.allHTTPHeaderFields = all
        // Each property only where it differs from a new request's: a new request's method is already GET, and
        // setting one normalizes it through NSString.
        if remade.httpMethod != httpMethod { remade.httpMethod = httpMethod }
        if let body = httpBody {
            remade.httpBody = body
        } else if let stream = httpBodyStream {
            remade.httpBodyStream = stream
        }
        if remade.mainDocumentURL != mainDocumentURL { remade.mainDocumentURL = mainDocumentURL }
        if remade.networkServiceType != networkServiceType { remade.networkServiceType = networkServiceType }
        if remade.allowsCellularAccess != allowsCellularAccess { remade.allowsCellularAccess = allowsCellularAccess }
        if remade.httpShouldHandleCookies != httpShouldHandleCookies {
            remade.httpShouldHandleCookies = httpShouldHandleCookies
        }
        if remade.pipelines != pipelines { remade.pipelines = pipelines }
        return remade
    }

    /// Whether ``settingHeaderFields(_:)`` makes the request anew (FoundationNetworking, whose requests have only the
    /// properties it copies) rather than copying it (Apple's, which have more).
    static let isRemadeToChange: Bool = {
        #if canImport(FoundationNetworking)
            true
        #else
            false
        #endif
    }()
}

/// `httpShouldUsePipelining`, deprecated and used by neither transport, carried over by ``URLRequest/settingHeaderFields(_:)``
/// as a copy carries it: read and set through this requirement, which the deprecated property fulfils.
protocol PipeliningSetting {
    var httpShouldUsePipelining: Bool { get set }
}

extension URLRequest: PipeliningSetting {}

extension PipeliningSetting {
    /// The request's `httpShouldUsePipelining`.
    var pipelines: Bool {
        get { httpShouldUsePipelining }
        set { httpShouldUsePipelining = newValue }
    }
}
