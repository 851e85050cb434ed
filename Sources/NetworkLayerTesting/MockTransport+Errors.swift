extension MockTransport {
    /// Thrown when a request matches no registration and there is no default response.
    ///
    /// Its description names the request and lists every registration with the line that made it, so a typo in a
    /// route or path shows at once:
    ///
    /// `MockTransport has no response for GET https://api.example.com/users/7; registered: GET https://api.example.com/users/1 → 200 (52 bytes) (UserTests.swift:12); no default response`
    public struct UnmatchedRequest: Error, CustomStringConvertible {
        /// The method of the request nothing matched.
        public let method: String
        /// The URL of the request nothing matched.
        public let url: String
        /// A line per registration: what it matches, what it answers, where it was registered.
        public let registered: [String]

        /// One line: the request, then what was registered.
        public var description: String {
            let list = registered.isEmpty ? "nothing registered" : "registered: " + registered.joined(separator: "; ")
            return "MockTransport has no response for \(method) \(url); \(list); no default response"
        }
    }

    /// Thrown when a fixture file for a ``MockResponse`` could not be read.
    public struct FixtureError: Error, CustomStringConvertible {
        /// The file or resource name.
        public let name: String
        /// Why it could not be read.
        public let reason: String

        /// One line naming the fixture and the reason.
        public var description: String { "MockTransport fixture \(name): \(reason)" }
    }
}
