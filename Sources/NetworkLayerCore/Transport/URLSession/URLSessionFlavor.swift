/// Whose URLSession the transport drives: Apple's, or FoundationNetworking's (swift-corelibs-foundation, on Linux).
///
/// The one compile-time branch that the URLSession transport's per-platform choices derive from
/// (``SessionDelegate/suspendingPausesTheTransfer``, ``URLSessionUpload/handsOverThroughBoundStreams``,
/// ``URLSessionUpload/announcesStreamedLength``): a constant, so that the code on both sides of each choice
/// type-checks and runs its tests on Linux.
enum URLSessionFlavor {
    /// Whether URLSession is Apple's.
    static let isApples: Bool = {
        #if canImport(FoundationNetworking)
            false
        #else
            true
        #endif
    }()
}
