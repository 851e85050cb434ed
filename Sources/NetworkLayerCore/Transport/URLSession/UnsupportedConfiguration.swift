import Foundation

#if canImport(FoundationNetworking)
    // URLSessionConfiguration lives in FoundationNetworking on Linux.
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// A session configuration that cannot carry the transport's requests: a background configuration.
    ///
    /// A background session (`URLSessionConfiguration.background(withIdentifier:)`) runs only downloads and uploads
    /// from a file, in a system process that outlives the app; it has no data tasks and no uploads from memory or
    /// from a stream, which is how ``URLSessionTransport`` sends every request, so its first send would stop the
    /// app. The transport refuses such a configuration when it is made. For transfers that go on while the app is
    /// suspended, use a background session of your own beside the transport.
    public struct UnsupportedConfiguration: Error, CustomStringConvertible {
        /// The background configuration's identifier.
        public let identifier: String

        /// What was refused, and what the configuration could serve.
        public var description: String {
            "URLSessionTransport cannot use the background configuration \"\(identifier)\": a background session runs "
                + "only downloads and uploads from a file, while the transport sends every request as a data task or "
                + "an upload from memory or a stream; use a default or ephemeral configuration"
        }

        /// Throws when `configuration` is a background one.
        static func check(_ configuration: URLSessionConfiguration) throws(UnsupportedConfiguration) {
            if let identifier = configuration.identifier { throw UnsupportedConfiguration(identifier: identifier) }
        }
    }
}
