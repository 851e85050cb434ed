/// The result of a send that checks the status and decodes nothing.
///
/// It is what `try await network.send(route)` returns when no type is named, so the call reads as a statement:
///
/// ```swift
/// try await network.send(UserRoute.deleteUser(id: 1))
/// ```
///
/// Forgetting to name the type you want is a compile error with the fix in its message, not a silent `()`:
/// `let user = try await network.send(route)` followed by `user.name` says to write
/// `let user: User = try await network.send(route)`. With a completion handler, name it in the closure:
/// `{ (result: Result<StatusOnly, NetworkError>) in … }`.
@dynamicMemberLookup
public struct StatusOnly: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// Creates the value; nothing is read.
    public init() {}

    /// Reads nothing: any body, empty or not, gives the same value.
    public init(from decoder: any Decoder) throws {}

    /// What a printed value most likely means: the type to decode was not named.
    public var description: String {
        "status checked, body not decoded: name the type to decode it, e.g. `let user: User = try await network.send(route)`"
    }

    /// Not available: the send decoded nothing, so there is no member to read.
    @available(
        *, unavailable,
        message:
            "send(_:) without a result type only checks the status; name the type to decode, as in `let user: User = try await network.send(route)`"
    )
    public subscript<Member>(dynamicMember name: String) -> Member {
        // Never runs: the declaration is unavailable, so no call to it compiles; Swift still wants a body.
        fatalError("unavailable")
    }
}
