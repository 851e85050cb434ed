#if os(Linux)
    import Foundation
    import Testing

    @testable import NetworkLayer
    @testable import NetworkLayerCore
    @testable import NetworkLayerCurl

    /// The decisions of a libcurl transfer's hop, made without libcurl: when its caller is answered, whether its
    /// handle keeps its options for the next hop, and how its end is reported.
    @Suite("CurlHop: a transfer's phases as one value")
    struct CurlHopTests {
        static let cap = 1_000

        /// A complete head of a final `200` announcing `length` bytes.
        static func ok(length: Int64? = 120, encoded: Bool = false) -> CurlHop.CompleteHead {
            .init(
                statusCode: 200, announcedLength: length, isContentEncoded: encoded, answersHEAD: false,
                isFollowedRedirect: false)
        }

        /// How a hop ended, in a word: what the transfer reports it as.
        static func kind(_ end: CurlHop.End) -> String {
            switch end {
            case .retryOnFreshConnection: "retry"
            case .streamEnded(let abort, let failed):
                "stream ended \(abort.map { "\($0)" } ?? "whole")\(failed ? ", failed" : "")"
            case .aborted(let abort): "aborted \(abort)"
            case .failed: "failed"
            case .closedInsideHead: "closed inside the head"
            case .noResponse: "no response"
            case .response: "response"
            }
        }

        static func plainGET() -> CurlHop {
            var hop = CurlHop(maximumResponseSize: cap)
            hop.start(plainGET: true, maySendAgain: true)
            _ = hop.sendRequest()
            return hop
        }

        @Test func aPlainGETOnAnIdleLoopIsAnsweredAsItsLastByteArrivesAndKeepsItsOptions() {
            var hop = Self.plainGET()
            #expect(hop.headCompleted(Self.ok(), streamed: false, answersEarly: true) == .receiveBody)
            let early = hop.bodyCollected(count: 119)
            #expect(!early && !hop.wasAnsweredEarly)
            let answered = hop.bodyCollected(count: 120)
            #expect(answered && hop.wasAnsweredEarly)
            hop.abort(.ended)
            #expect(hop.wasAnsweredEarly, "ending libcurl's transfer afterwards does not undo the answer")
            // A callback's short count is libcurl's write error.
            let (end, keepsOptions) = hop.finish(.writeError, statusArrived: true, headIsComplete: true)
            #expect(Self.kind(end) == "failed", "the send has ended: the loop's end of it changes nothing")
            #expect(!keepsOptions, "a transfer ended by a callback leaves its handle to be reset")
        }

        @Test func aPlainGETThatEndedWellOnItsFirstAttemptKeepsTheHandlesOptions() {
            var hop = Self.plainGET()
            _ = hop.headCompleted(Self.ok(), streamed: false, answersEarly: false)
            let (end, keepsOptions) = hop.finish(.ok, statusArrived: true, headIsComplete: true)
            #expect(Self.kind(end) == "response" && keepsOptions)
        }

        @Test(arguments: [
            ("the loop is busy", Self.ok(), false),
            ("content-coded", Self.ok(encoded: true), true),
            ("no length", Self.ok(length: nil), true),
            ("an empty body", Self.ok(length: 0), true),
            ("over the cap", Self.ok(length: Int64(cap) + 1), true),
            (
                "a redirect",
                CurlHop.CompleteHead(
                    statusCode: 302, announcedLength: 10, isContentEncoded: false, answersHEAD: false,
                    isFollowedRedirect: true), true
            ),
        ])
        func otherResponsesWaitForLibcurlToFinish(_ name: String, head: CurlHop.CompleteHead, idle: Bool) {
            var hop = Self.plainGET()
            _ = hop.headCompleted(head, streamed: false, answersEarly: idle)
            let answered = hop.bodyCollected(count: Int(head.announcedLength ?? 120))
            #expect(!answered, "\(name)")
        }

        @Test func onlyAPlainGETIsAnsweredEarlyOrKeepsItsOptions() {
            var hop = CurlHop(maximumResponseSize: Self.cap)
            hop.start(plainGET: false, maySendAgain: true)
            _ = hop.sendRequest()
            _ = hop.headCompleted(Self.ok(), streamed: false, answersEarly: true)
            let answered = hop.bodyCollected(count: 120)
            let (_, keepsOptions) = hop.finish(.ok, statusArrived: true, headIsComplete: true)
            #expect(!answered && !keepsOptions)
        }

        @Test func aRequestLibcurlSentTwiceLeavesItsHandleToBeReset() {
            var hop = Self.plainGET()
            _ = hop.sendRequest()
            _ = hop.headCompleted(Self.ok(), streamed: false, answersEarly: false)
            let (end, keepsOptions) = hop.finish(.ok, statusArrived: true, headIsComplete: true)
            #expect(Self.kind(end) == "response" && !keepsOptions)
        }

        @Test("A request that may not go again is aborted when libcurl is about to send it a second time")
        func libcurlSendsARequestAtMostOnceUnlessItMayGoAgain() {
            var post = CurlHop(maximumResponseSize: Self.cap)
            post.start(plainGET: false, maySendAgain: false)
            let first = post.sendRequest()
            let second = post.sendRequest()
            #expect(first, "the first send goes")
            #expect(!second, "libcurl's own second send does not")
            // CURLE_ABORTED_BY_CALLBACK (42): what libcurl reports for the abort.
            let (end, _) = post.finish(CurlCode(rawValue: 42), statusArrived: false, headIsComplete: false)
            #expect(Self.kind(end) == "aborted notSentAgain")
            // The next hop (a redirect, which the policy decides) starts its count again.
            post.start(plainGET: false, maySendAgain: false)
            let redirected = post.sendRequest()
            #expect(redirected)
            var get = CurlHop(maximumResponseSize: Self.cap)
            get.start(plainGET: true, maySendAgain: true)
            let sends = (get.sendRequest(), get.sendRequest())
            #expect(sends.0 && sends.1, "an idempotent request may go again")
        }

        @Test func aBodyAnnouncedOverTheCapIsRefusedUnlessTheRequestWasAHEAD() {
            var hop = Self.plainGET()
            let refused = hop.headCompleted(Self.ok(length: 5_000), streamed: false, answersEarly: true)
            #expect(refused == .refuseBody(announced: 5_000))
            let (end, _) = hop.finish(.writeError, statusArrived: true, headIsComplete: true)
            #expect(Self.kind(end) == "aborted tooLarge(announced: Optional(5000))")
            var head = CurlHop(maximumResponseSize: Self.cap)
            head.start(plainGET: false, maySendAgain: true)
            var announced = Self.ok(length: 5_000)
            announced.answersHEAD = true
            #expect(head.headCompleted(announced, streamed: false, answersEarly: true) == .receiveBody)
        }

        @Test func anUncleanConnectionSendsTheHopAgainOnAFreshOneOnce() {
            var hop = Self.plainGET()
            hop.abort(.uncleanConnection)
            let (end, keepsOptions) = hop.finish(CurlCode(rawValue: 42), statusArrived: false, headIsComplete: false)
            #expect(Self.kind(end) == "retry" && !keepsOptions)
            #expect(hop.opensFreshConnection)
            hop.start(plainGET: true, maySendAgain: true)
            #expect(!hop.isPlainGET, "a hop on a fresh connection of its own is set up in full")
            _ = hop.sendRequest()
            _ = hop.headCompleted(Self.ok(), streamed: false, answersEarly: true)
            let answered = hop.bodyCollected(count: 120)
            #expect(!answered)
            let (next, _) = hop.finish(.ok, statusArrived: true, headIsComplete: true)
            #expect(Self.kind(next) == "response")
            #expect(!hop.opensFreshConnection, "the next hop may reuse connections again")
        }

        @Test func aStreamedCallerGetsTheHeadUnlessItIsARedirectToFollow() {
            var redirected = CurlHop(maximumResponseSize: Self.cap)
            redirected.start(plainGET: false, maySendAgain: true)
            let redirect = CurlHop.CompleteHead(
                statusCode: 307, announcedLength: nil, isContentEncoded: false, answersHEAD: false,
                isFollowedRedirect: true)
            #expect(redirected.headCompleted(redirect, streamed: true, answersEarly: true) == .receiveBody)
            #expect(!redirected.hasDeliveredHead)

            var hop = CurlHop(maximumResponseSize: Self.cap)
            hop.start(plainGET: false, maySendAgain: true)
            #expect(hop.headCompleted(Self.ok(length: 5_000), streamed: true, answersEarly: true) == .deliverHead)
            #expect(hop.hasDeliveredHead, "a streamed body is not held to the cap by its announced length")
            #expect(hop.headCompleted(Self.ok(), streamed: true, answersEarly: true) == .receiveBody)
        }

        @Test func aStreamedBodyEndsWithWhatEndedIt() {
            func streaming() -> CurlHop {
                var hop = CurlHop(maximumResponseSize: Self.cap)
                hop.start(plainGET: false, maySendAgain: true)
                _ = hop.headCompleted(Self.ok(), streamed: true, answersEarly: false)
                return hop
            }
            var complete = streaming()
            #expect(
                Self.kind(complete.finish(.ok, statusArrived: true, headIsComplete: true).end) == "stream ended whole")
            var dropped = streaming()
            let drop = dropped.finish(.partialFile, statusArrived: true, headIsComplete: true).end
            #expect(Self.kind(drop) == "stream ended whole, failed")
            var left = streaming()
            left.abort(.ended)
            #expect(left.hasDeliveredHead, "an abort after the head keeps the stream's ending")
            let leaving = left.finish(.writeError, statusArrived: true, headIsComplete: true).end
            #expect(Self.kind(leaving) == "stream ended ended, failed")
        }

        @Test func libcurlsEndWithoutAResponseIsNamed() {
            var failed = Self.plainGET()
            #expect(
                Self.kind(failed.finish(.couldNotConnect, statusArrived: false, headIsComplete: false).end) == "failed")
            var inside = Self.plainGET()
            let closed = inside.finish(.ok, statusArrived: true, headIsComplete: false).end
            #expect(Self.kind(closed) == "closed inside the head")
            var nothing = Self.plainGET()
            #expect(Self.kind(nothing.finish(.ok, statusArrived: false, headIsComplete: false).end) == "no response")
            var broken = Self.plainGET()
            broken.abort(.head(.malformedLine))
            let violation = broken.finish(.writeError, statusArrived: true, headIsComplete: false).end
            #expect(Self.kind(violation) == "aborted head(a header line without a colon)")
        }

        @Test func aHopWaitsInThePoolUntilItLeavesIt() {
            var hop = CurlHop(maximumResponseSize: Self.cap)
            hop.start(plainGET: true, maySendAgain: true)
            #expect(!hop.isWaitingForConnection)
            hop.waitForConnection()
            #expect(hop.isWaitingForConnection)
            hop.stopWaitingForConnection()
            #expect(!hop.isWaitingForConnection)
        }

        @Test func aHopThatLibcurlHasCannotWaitForAConnectionOrLeaveThePool() async {
            // Each would be two records of one send disagreeing: it stops the process rather than hang a send.
            await #expect(processExitsWith: .failure) {
                var hop = CurlHop(maximumResponseSize: 1024)
                hop.start(plainGET: true, maySendAgain: true)
                _ = hop.sendRequest()
                hop.waitForConnection()
            }
            await #expect(processExitsWith: .failure) {
                var hop = CurlHop(maximumResponseSize: 1024)
                hop.start(plainGET: true, maySendAgain: true)
                _ = hop.headCompleted(
                    .init(
                        statusCode: 200, announcedLength: 5, isContentEncoded: false, answersHEAD: false,
                        isFollowedRedirect: false),
                    streamed: false, answersEarly: true)
                hop.stopWaitingForConnection()
            }
        }
    }
#endif
