import Foundation

extension URLError {
    /// A `URLError` whose description says what happened, for errors the transport makes itself.
    init(_ code: URLError.Code, description: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: description])
    }
}
