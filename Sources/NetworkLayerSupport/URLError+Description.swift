public import Foundation

extension URLError {
    /// A `URLError` whose description says what happened, for errors the transport makes itself.
    public init(_ code: URLError.Code, description: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: description])
    }
}

extension URLError {
    /// A `URLError` whose description says what happened and which URL it happened to.
    public init(_ code: URLError.Code, description: String, url: URL?) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        self.init(code, userInfo: info)
    }
}
