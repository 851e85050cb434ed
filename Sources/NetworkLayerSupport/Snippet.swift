/// How much of a body a message shows: an error's description, a dead letter's.
public enum Snippet {
    /// The bytes of a body a message shows at most.
    public static let length = 200
}
