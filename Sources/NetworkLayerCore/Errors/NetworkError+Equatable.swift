import Foundation

extension NetworkError: Equatable {
    /// Whether two errors are the same case with the same details: the part and reason, the failure's kind, the
    /// status and body, the decoding error (by what it says), the middleware's name, the queued entry.
    ///
    /// Header fields (a `Date`, a `Content-Type`) and underlying errors are not compared: a test writes
    /// `#expect(error == .cancelled)` or `#expect(error == .transport(.timedOut, underlyingError: URLError(.timedOut)))`
    /// and matches any timeout.
    public static func == (left: NetworkError, right: NetworkError) -> Bool {
        switch (left, right) {
        case (.invalidRequest(let part, let reason, _), .invalidRequest(let otherPart, let otherReason, _)):
            part == otherPart && reason == otherReason
        case (.transport(let failure, _), .transport(let otherFailure, _)):
            failure == otherFailure
        case (.unacceptableStatus(let status, _, let body), .unacceptableStatus(let other, _, let otherBody)):
            status == other && body == otherBody
        case (.decoding(let error, let status, let body), .decoding(let otherError, let other, let otherBody)):
            status == other && body == otherBody && "\(error)" == "\(otherError)"
        case (.cancelled, .cancelled):
            true
        case (.middleware(let name, _), .middleware(let otherName, _)):
            name == otherName
        case (.queued(let id, _), .queued(let otherID, _)):
            id == otherID
        default:
            false
        }
    }
}
