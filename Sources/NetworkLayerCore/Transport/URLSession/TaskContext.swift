import Foundation
import NetworkLayerSupport

#if canImport(FoundationNetworking)
    // URLResponse and HTTPURLResponse live in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

/// What the session delegate knows about one send: its redirect chain, the data task now running for it, and where
/// that task's answer stands (``Phase``).
struct TaskContext {
    /// Where the current task's answer stands, as one value: collected for the caller (its head once it arrived, its
    /// body as it arrives), or, for a streamed send whose caller has the head, going to the stream. A redirect the
    /// delegate follows starts the next task's answer afresh.
    enum Phase {
        case collecting(URLResponse?, body: Data)
        case streaming(HTTPURLResponse)
    }

    var chain: RedirectChain
    /// The send's overall deadline in seconds, as the caller gave it (FoundationNetworking gets it rounded up).
    let deadline: TimeInterval
    let state: Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>
    /// Where the body goes once the caller has the head, for a streamed send.
    let stream: BodyStream?
    /// Where the current task's answer stands.
    private(set) var phase = Phase.collecting(nil, body: Data())
    /// The request body of an upload, sent again from its start when a redirect keeps it.
    var upload: URLSessionUpload?
    /// The bytes of the upload body the current task has sent, as counted for progress.
    var bytesSent: Int64 = 0

    init(
        chain: RedirectChain, deadline: TimeInterval,
        state: Locked<SendState<URLSessionTask, (Data, HTTPURLResponse)>>, stream: BodyStream?
    ) {
        self.chain = chain
        self.deadline = deadline
        self.state = state
        self.stream = stream
    }

    /// The current task's response head, once it arrived.
    var response: URLResponse? {
        switch phase {
        case .collecting(let response, _): response
        case .streaming(let response): response
        }
    }

    /// The body collected for the caller: empty once it goes to a stream.
    var body: Data {
        if case .collecting(_, let body) = phase { return body }
        return Data()
    }

    /// The stream the body goes to now: a streamed send's, once its caller has the head.
    var bodyStream: BodyStream? {
        if case .streaming = phase { return stream }
        return nil
    }

    /// A head arrived (an interim one may come before the final one): kept for the answer. Once a streamed caller
    /// has its head, a later one (Apple's URLSession reports each part of a `multipart/x-mixed-replace` body as one)
    /// changes nothing.
    mutating func receive(_ response: URLResponse) {
        guard case .collecting(_, let body) = phase else { return }
        phase = .collecting(response, body: body)
    }

    /// The streamed send's caller has the head: the body goes to its stream from now on.
    mutating func deliver(_ response: HTTPURLResponse) {
        guard stream != nil, case .collecting = phase else {
            preconditionFailure("a head delivered to a send that does not stream, or twice")
        }
        phase = .streaming(response)
    }

    /// Adds body bytes to the answer; `false`, adding nothing, when they would take it over `limit` bytes.
    mutating func collect(_ data: Data, limit: Int) -> Bool {
        guard case .collecting(let response, var body) = phase else {
            preconditionFailure("body bytes collected for a send whose body goes to its stream")
        }
        guard body.count + data.count <= limit else { return false }
        // Most bodies arrive in one piece: kept without a copy. The phase lets go of the body while it grows.
        phase = .collecting(response, body: Data())
        if body.isEmpty { body = data } else { body.append(data) }
        phase = .collecting(response, body: body)
        return true
    }

    /// The next task of a redirect chain starts: its answer is collected afresh.
    mutating func startOver() {
        phase = .collecting(nil, body: Data())
    }

    /// The outcome of the finished task, with FoundationNetworking's errors put into categories.
    func result(error: (any Error)?) -> Result<(Data, HTTPURLResponse), any Error> {
        Self.result(body: body, response: response, error: error, request: chain.current, deadline: deadline)
    }

    /// The outcome of a finished task: its error put into a category, or its body and HTTP response. `sentOnce`:
    /// whether the request can have gone out only once (Apple's URLSession; the transport's sessions on Linux), so that
    /// a close without an answer of one that may not go twice says it was not sent again.
    static func result(
        body: Data,
        response: URLResponse?,
        error: (any Error)?,
        request: URLRequest,
        deadline: TimeInterval,
        sentOnce: Bool = true
    ) -> Result<(Data, HTTPURLResponse), any Error> {
        if (error as? URLError)?.code == .timedOut {
            // URLSession's own timer runs out no sooner than the overall deadline (it gets that deadline, rounded
            // up): the same failure, said the same way, as when the transport's monitor ends the send.
            return .failure(NetworkError.deadlineExceeded(after: deadline, for: request))
        }
        if let error {
            // No byte of an answer, and the request was not sent again (Linux: its connection was fresh; Apple's
            // URLSession sends again only what may go twice): the server may have acted on it.
            let closed = closedWithoutAnswer(error, response: response)
            if closed && sentOnce && !RetryOption.idempotentMethodsOnly.allowsSendingAgain(request) {
                return .failure(NetworkError.notSentAgain(method: request.httpMethod ?? "GET", url: request.url))
            }
            // An interim response (FoundationNetworking's `100 Continue`) is no answer.
            return .failure(classify(error, afterResponse: response != nil && !closed, url: request.url))
        }
        guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success((body, response))
    }

    /// Whether a task failed because its connection closed before any byte of a final answer: libcurl's empty
    /// reply (FoundationNetworking, which hands over an interim `100 Continue` as the task's response), or a
    /// connection lost with no response (Apple's URLSession).
    static func closedWithoutAnswer(_ error: any Error, response: URLResponse?) -> Bool {
        let isInterim = (response as? HTTPURLResponse).map { (100..<200).contains($0.statusCode) } ?? false
        guard response == nil || isInterim, let error = error as? URLError else { return false }
        switch error.code {
        case .zeroByteResource, .networkConnectionLost: return true
        case .badServerResponse: return error.localizedDescription.hasPrefix("Empty reply")
        default: return false
        }
    }

    /// Maps the codes libcurl leaves vague: a garbage status line arrives as `unsupportedURL` (the URL itself was
    /// checked before sending), an empty reply as `badServerResponse`, a body cut short (fixed length or chunked) as
    /// `unknown`, and so does every TLS failure, which is told apart by its text.
    static func classify(_ error: any Error, afterResponse: Bool, url: URL?) -> any Error {
        guard let error = error as? URLError else { return error }
        switch error.code {
        case .cancelled:
            return CancellationError()
        case .unsupportedURL where url?.scheme.map(RequestRules.isHTTP) == true:
            return NetworkError.transport(.badResponse, underlyingError: error)
        case .badServerResponse where !afterResponse && error.localizedDescription.hasPrefix("Empty reply"):
            // libcurl's "got nothing": the connection closed before a byte of response. `zeroByteResource`, as
            // CurlTransport says it, tells it from a malformed response (the outcome of the request is unknown).
            return URLError(.zeroByteResource, userInfo: error.userInfo)
        case .unknown:
            // FoundationNetworking turns every TLS failure into `unknown` with libcurl's text: read the check from it.
            let message = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
            if !afterResponse, let failure = TLSFailure(message: message) {
                return failure.error(message: message, url: url)
            }
            if !afterResponse && message == "Out of memory" {
                return HeaderLineLimit.exceeded(libcurlText: message, url: url)
            }
            return NetworkError.transport(afterResponse ? .connectionLost : .badResponse, underlyingError: error)
        default:
            return error
        }
    }
}
