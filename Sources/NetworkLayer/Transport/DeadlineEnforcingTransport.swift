/// A transport that ends a request by itself once `request.timeoutInterval` has passed since `send` began,
/// counting queueing, redirects and slow bodies, and then throws a timeout.
///
/// ``Network`` runs any other transport in a task of its own, raced against its deadline (``Network/race(_:within:_:)``);
/// the transports of this package conform so that their requests need no extra task.
package protocol DeadlineEnforcingTransport: Transport {}

extension URLSessionTransport: DeadlineEnforcingTransport {}
