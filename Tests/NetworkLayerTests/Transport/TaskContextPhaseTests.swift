import Foundation
import NetworkLayerSupport
import Testing

@_spi(TransportKit) @testable import NetworkLayerCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the URLSession delegate's answer to one task stands, without a session: every event in each phase.
@Suite("TaskContext: one phase for the answer, collected or streamed")
struct TaskContextPhaseTests {
    let url = URL(string: "https://api.example.com/a")!

    func context(streaming: Bool) -> TaskContext {
        TaskContext(
            chain: RedirectChain(original: URLRequest(url: url), replaysBody: true), deadline: 60,
            state: Locked(SendState<URLSessionTask, (Data, HTTPURLResponse)>()),
            stream: streaming ? BodyStream(label: "test") : nil)
    }

    func head(_ status: Int) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    @Test("Collecting: heads replace each other, the body grows to its limit and no further, a redirect starts over")
    func collecting() {
        var context = context(streaming: false)
        #expect(context.response == nil && context.body.isEmpty && context.bodyStream == nil)
        context.receive(head(100))
        context.receive(head(200))
        #expect((context.response as? HTTPURLResponse)?.statusCode == 200)
        let first = context.collect(Data("abc".utf8), limit: 5)
        let over = context.collect(Data("def".utf8), limit: 5)
        let last = context.collect(Data("de".utf8), limit: 5)
        #expect(first && !over && last, "over the limit: nothing added")
        #expect(context.body == Data("abcde".utf8))
        context.startOver()
        #expect(context.response == nil && context.body.isEmpty)
    }

    @Test("Streaming: the body goes to the stream once the head is delivered, and a later head changes nothing")
    func streaming() {
        var context = context(streaming: true)
        #expect(context.bodyStream == nil, "before the head, the body is collected (a redirect's)")
        context.deliver(head(200))
        #expect(context.bodyStream != nil && context.body.isEmpty)
        context.receive(head(206))
        #expect((context.response as? HTTPURLResponse)?.statusCode == 200)
    }

    #if os(macOS) || os(Linux)
        @Test("A head delivered twice, or to a send that does not stream, stops the process")
        func aHeadDeliveredTwiceStopsTheProcess() async {
            await #expect(processExitsWith: .failure) {
                var context = TaskContextPhaseTests().context(streaming: true)
                context.deliver(TaskContextPhaseTests().head(200))
                context.deliver(TaskContextPhaseTests().head(200))
            }
            await #expect(processExitsWith: .failure) {
                var context = TaskContextPhaseTests().context(streaming: false)
                context.deliver(TaskContextPhaseTests().head(200))
            }
        }

        @Test("Body bytes collected once the body goes to its stream stop the process")
        func bytesCollectedForAStreamStopTheProcess() async {
            await #expect(processExitsWith: .failure) {
                var context = TaskContextPhaseTests().context(streaming: true)
                context.deliver(TaskContextPhaseTests().head(200))
                _ = context.collect(Data("x".utf8), limit: 10)
            }
        }
    #endif
}
