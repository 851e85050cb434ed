extension NetworkError {
    /// The part of a route that made a request impossible to build.
    public enum RequestPart: String, Sendable, CustomStringConvertible {
        /// The URL: not absolute http or https, credentials in it, or a path that does not join.
        case url
        /// The HTTP method: not an RFC 9110 token.
        case method
        /// A header name or value.
        case headers
        /// The body: it could not be encoded, or the method does not allow one.
        case body

        /// The part's name, for messages.
        public var description: String { rawValue }
    }
}
