public import NetworkLayerCore

/// A route that carries a sample of its response, for tests: ``MockTransport/respondWithSamples(of:delayedBy:fileID:line:)``
/// answers each route with its own.
///
/// Adopt it where your tests can see it, in the test target if the app should not carry samples:
///
/// ```swift
/// extension UserRoute: SampledRoute {
///     var sampleResponse: MockResponse {
///         switch self {
///         case .getUser(let id): .json(#"{"id":\#(id),"name":"Ann","email":"ann@example.com"}"#)
///         case .createUser: .status(201)
///         case .deleteUser: .status(204)
///         }
///     }
/// }
///
/// mock.respondWithSamples(of: [UserRoute.getUser(id: 1), .createUser(name: "Ann", email: "a@x.io")])
/// ```
public protocol SampledRoute: URLRequestProtocol {
    /// What a server answers this route, in a test.
    var sampleResponse: MockResponse { get }
}
