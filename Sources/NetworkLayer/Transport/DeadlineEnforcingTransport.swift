/// A transport that ends a request by itself once `request.timeoutInterval` has passed since `send` began,
/// counting queueing, redirects and slow bodies, and then throws a timeout.
///
/// ``Network`` races any other transport against its deadline in a task group; the transports of this package
/// conform so that their requests need no extra tasks.
package protocol DeadlineEnforcingTransport: Transport {}

extension URLSessionTransport: DeadlineEnforcingTransport {}
