import NetworkLayerSupport

#if os(Linux)
    @_spi(TransportKit) import NetworkLayerCore
    import CCurl
    import Foundation
    import Synchronization

    /// The loop the transport's pool placed a send on, once it has (a send waiting in the pool has none yet): where
    /// its cancellation and its stream's resumptions go. Set once, by whoever places the send, before the send can
    /// start; a cancellation that finds none finds the send still in the pool, or about to start and see that it
    /// ended.
    final class CurlSendPlacement: Sendable {
        /// The key of the send's host in the pool (``CurlHostPool/host(ofURL:)``).
        let host: String
        private let placed = Atomic<Int>(-1)

        init(host: String) {
            self.host = host
        }

        /// Notes the loop the send runs on.
        func place(onLoop index: Int) {
            placed.store(index, ordering: .sequentiallyConsistent)
        }

        /// The loop the send runs on, if it has been placed.
        var loop: Int? {
            let index = placed.load(ordering: .sequentiallyConsistent)
            return index < 0 ? nil : index
        }
    }
#endif
