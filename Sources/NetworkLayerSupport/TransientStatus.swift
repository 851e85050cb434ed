/// The statuses with which a server says "not now": a request timeout (408), too many requests (429), and an error
/// or a gateway's failure that the next attempt may not meet (500, 502, 503, 504). The one list of them: what
/// `RetryMiddleware` sends again after, and what a reconnecting `WebSocket` connects again after.
public enum TransientStatus {
    /// The status codes.
    public static let codes: Set<Int> = [408, 429, 500, 502, 503, 504]
}
