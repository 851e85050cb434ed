/// A key for a setting a route passes to middleware through ``RequestOptions``, like a SwiftUI environment key.
///
/// ```swift
/// enum TraceKey: RequestOptionKey {
///     static let defaultValue = false
/// }
///
/// extension RequestOptions {
///     var isTraced: Bool {
///         get { self[TraceKey.self] }
///         set { self[TraceKey.self] = newValue }
///     }
/// }
/// ```
public protocol RequestOptionKey {
    /// The type of the setting.
    associatedtype Value: Sendable

    /// The value a route that says nothing gets.
    static var defaultValue: Value { get }
}
