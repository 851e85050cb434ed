/// Whose URLSession carries the transport's bytes: Apple's, or FoundationNetworking's (swift-corelibs-foundation, on
/// Linux).
///
/// Not a decision of the package but a fact of the build, the same in both of the tests' flavors (a Linux machine
/// running Apple's decisions still has FoundationNetworking's URLSession, see `PlatformFlavor`). The choices that
/// follow from how that URLSession behaves derive from it (``SessionDelegate/suspendingPausesTheTransfer``,
/// ``SessionDelegate/callsRedirectHandler(sendEnded:callableAfterCancellation:)``,
/// ``URLSessionUpload/announcesStreamedLength``, a session of its own for a send that may not go out twice): a
/// constant, so that the code on both sides of each choice type-checks, and runs its tests, on Linux.
enum URLSessionEngine {
    /// Whether URLSession is Apple's.
    static let isApples: Bool = {
        #if canImport(FoundationNetworking)
            false
        #else
            true
        #endif
    }()
}
