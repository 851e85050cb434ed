/// Settings a route passes to the middleware of a ``Network``: the built-ins' switches and keys of your own.
///
/// A route sets them by overriding ``URLRequestProtocol/options``; routes that don't are sent with the defaults.
///
/// ```swift
/// var options: RequestOptions {
///     var options = RequestOptions()
///     options.retry = .never
///     return options
/// }
/// ```
///
/// A middleware reads them from ``RequestContext/options``: `context.options[MyKey.self]`.
public struct RequestOptions: Sendable {
    @usableFromInline var values: [ObjectIdentifier: any Sendable] = [:]

    /// Options with every key at its default value.
    public init() {}

    /// The value for a key; its ``RequestOptionKey/defaultValue`` until set.
    ///
    /// Inlinable, so that a middleware in another module reads its option without an unspecialized generic call.
    @inlinable public subscript<Key: RequestOptionKey>(_ key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}
