/// HTTP header fields whose names match without regard to case, on every platform.
///
/// ```swift
/// let response: Response<User> = try await network.send(UserRoute.getUser(id: 1))
/// print(response.headers["ETag"] ?? "none")            // also when the platform spelled it "Etag"
/// for field in response.headers { print(field.name, field.value) }
/// ```
///
/// Fields keep their order: the order they were added in, or sorted by name when made from a dictionary (whose order
/// is arbitrary, as `HTTPURLResponse`'s is). Two values are equal when they hold the same fields in the same order,
/// names compared without regard to case.
public struct HeaderFields: Sendable, Hashable, Codable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// One header field: a name as it was spelled, and its value.
    public struct Field: Sendable, Hashable {
        /// The name, as it was spelled, for example `Content-Type`.
        public var name: String
        /// The value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]
    /// The credentials the middleware withheld from the request a response with these fields answered: not a field,
    /// not compared, hashed or encoded; what ``NetworkError/withheldCredentials`` reads.
    var withheldCredentials: [WithheldCredential] = []

    /// Creates empty header fields.
    public init() {
        fields = []
    }

    /// Creates header fields from a dictionary, sorted by name.
    public init(_ dictionary: [String: String]) {
        fields = dictionary.map { Field(name: $0.key, value: $0.value) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// Creates the header fields of a response, whatever the platform's type of its `allHeaderFields` (on Linux
    /// `[AnyHashable: Any]`).
    public init(_ response: HTTPURLResponse) {
        self.init(response.headerFields)
    }

    /// Creates header fields from a literal, in its order; a name given twice keeps its last value.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        for (name, value) in elements { self[name] = value }
    }

    /// The value of the field called `name` in any case, or `nil`; setting replaces it (under the new spelling) and
    /// `nil` removes it.
    public subscript(name: String) -> String? {
        get { fields.first { Self.sameName($0.name, name) }?.value }
        set {
            guard let newValue else {
                fields.removeAll { Self.sameName($0.name, name) }
                return
            }
            if let index = fields.firstIndex(where: { Self.sameName($0.name, name) }) {
                fields[index] = Field(name: name, value: newValue)
                let rest = fields.index(after: index)
                fields[rest...].removeAll { Self.sameName($0.name, name) }
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// How many fields there are.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The fields as a dictionary keyed by name as spelled, for APIs that take one.
    public var dictionary: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// `Content-Type: application/json; ETag: "v1"`.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
    }

    /// Same fields in the same order, names compared without regard to case.
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    /// Hashes lowercased names and values, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    /// Decodes a JSON object of names and values.
    public init(from decoder: any Decoder) throws {
        self.init(try [String: String](from: decoder))
    }

    /// Encodes a JSON object of names and values.
    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }

    /// Whether two field names are the same, ignoring ASCII case (header names are ASCII tokens): exactly when their
    /// `lowercasedASCII` forms are equal.
    @inlinable public static func sameName(_ first: String, _ second: String) -> Bool {
        sameName(first.utf8, second.utf8)
    }

    /// Whether two field names, as bytes, are the same, ignoring the case of ASCII letters only (so `^` is not `~`).
    @inlinable public static func sameName(_ first: some Collection<UInt8>, _ second: some Collection<UInt8>) -> Bool {
        guard first.count == second.count else { return false }
        return zip(first, second).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}

extension String {
    /// The text with its ASCII letters `A`–`Z` in lower case and every other byte as it was: the case rule of header
    /// names (``HeaderFields``) and of the transport's host keys, where `lowercased()` would also change letters
    /// outside ASCII. Returns the text itself, without a copy, when it has no such letter.
    @_spi(TransportKit) public var lowercasedASCII: String {
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return self }
        return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension HeaderFields {
    /// Checks fields before they are set on a request, as ``Network`` checks every request: throws for a name that
    /// is not a token, a value with CR, LF or NUL, or a name given twice in different cases.
    ///
    /// Foundation drops a value with a line break as it is set, so a middleware that adds fields it was given (as
    /// `DefaultHeadersMiddleware` does) checks them first:
    ///
    /// ```swift
    /// try HeaderFields.validate(["X-Team": team])
    /// ```
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:reason:underlyingError:)`` for the headers.
    public static func validate(_ fields: [String: String]) throws(NetworkError) {
        try RequestRules.validate(fields)
    }
}
