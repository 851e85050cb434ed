/// The result type of a completion handler whose closure does not name one; it has no values.
///
/// It exists so that `network.send(route) { result in … }` fails to compile with a message that says to name the
/// type, instead of silently choosing one.
public enum UnnamedResult: Sendable {}
