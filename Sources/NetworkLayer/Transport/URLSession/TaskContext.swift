import Foundation

#if canImport(FoundationNetworking)
    // URLResponse and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What the session delegate knows about one send: its redirect chain and the data task now running for it.
struct TaskContext {
    var chain: RedirectChain
    let state: Locked<SendState<URLSessionTask>>
    var response: URLResponse?
    var body = Data()

    /// The outcome of the finished task, with FoundationNetworking's errors put into categories.
    func result(error: (any Error)?) -> Result<(Data, HTTPURLResponse), any Error> {
        if let error { return .failure(Self.classify(error, afterResponse: response != nil, url: chain.current.url)) }
        guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success((body, response))
    }

    /// Maps the codes libcurl leaves vague: a garbage status line arrives as `unsupportedURL` (the URL itself was
    /// checked before sending), and a body cut short (fixed length or chunked) as `unknown`.
    static func classify(_ error: any Error, afterResponse: Bool, url: URL?) -> any Error {
        guard let error = error as? URLError else { return error }
        switch error.code {
        case .cancelled:
            return CancellationError()
        case .unsupportedURL where url?.scheme.map(RequestBuilder.isHTTP) == true:
            return NetworkError.transport(.badResponse, underlyingError: error)
        case .unknown:
            return NetworkError.transport(afterResponse ? .connectionLost : .badResponse, underlyingError: error)
        default:
            return error
        }
    }
}
