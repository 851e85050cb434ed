import Foundation
import NetworkLayerTesting
import Testing

@testable import NetworkLayer
@_spi(TransportKit) @testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ResponseHead: a response built only when asked for")
struct ReceivedResponseTests {
    let url = URL(string: "http://127.0.0.1:8080/users/1")!

    @Test func thePartsBuildTheResponseFoundationWouldHaveBuilt() throws {
        let fields = ["content-type": "application/json; charset=utf-8", "Content-Length": "52", "ETag": "\"v1\""]
        let received = ResponseHead(
            url: url, statusCode: 201, httpVersion: "HTTP/1.1", fields: fields.map { (name: $0.key, value: $0.value) })
        #expect(received.statusCode == 201)
        let response = try received.httpURLResponse()
        let expected = try #require(
            HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: fields))
        #expect(response.statusCode == expected.statusCode)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(response.expectedContentLength == 52)
        #expect(response.mimeType == expected.mimeType)
        #expect(response.headerFields == expected.headerFields)
    }

    @Test func repeatedFieldsReachTheResponseJoinedInTheirOrder() throws {
        let received = ResponseHead(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            fields: [("Set-Cookie", "a=1"), ("X-Trace", "7"), ("Set-Cookie", "b=2"), ("Set-Cookie", "c=3")])
        let response = try received.httpURLResponse()
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2, c=3")
        #expect(response.value(forHTTPHeaderField: "X-Trace") == "7")
    }

    @Test func aNameRepeatedInAnotherCaseIsOneFieldUnderItsFirstSpelling() throws {
        let fields = [("LOCATION", "/a"), ("X-Location", "/b"), ("location", "/c"), ("X-^", "1"), ("X-~", "2")]
        #expect(
            ResponseHead.headerFields(merging: fields) == [
                "LOCATION": "/a, /c", "X-Location": "/b", "X-^": "1", "X-~": "2",
            ])
        let response = try ResponseHead(url: url, statusCode: 302, httpVersion: "HTTP/1.1", fields: fields)
            .httpURLResponse()
        #expect(response.value(forHTTPHeaderField: "Location") == "/a, /c")
    }

    @Test func aBuiltResponseIsHandedBackAsItIs() throws {
        let built = try #require(
            HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["X-Trace": "7"]))
        let received = ResponseHead(built)
        #expect(received.statusCode == 404)
        #expect(try received.httpURLResponse() === built)
    }
}

@Suite("ResponseHeadMiddleware: middleware that pay only for what they read")
struct ResponseHeadMiddlewareTests {
    /// Records the task each request passed through and whether its response arrived built.
    struct Probe: ResponseHeadMiddleware {
        let tasks: Locked<[Int]>
        let built: Locked<[Bool]>

        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest, RequestContext) async throws -> (Data, ResponseHead)
        ) async throws -> (Data, ResponseHead) {
            tasks.withLock { $0.append(withUnsafeCurrentTask { $0.hashValue }) }
            var request = request
            request.setValue("1", forHTTPHeaderField: "X-Probe")
            let (data, response) = try await next(request, context)
            built.withLock { $0.append(response.isBuilt) }
            return (data, response)
        }
    }

    /// A middleware of the plain shape, which ignores the response.
    struct Plain: Middleware {
        func intercept(
            _ request: URLRequest,
            context: RequestContext,
            next: @Sendable (URLRequest, RequestContext) async throws -> (Data, HTTPURLResponse)
        ) async throws -> (Data, HTTPURLResponse) {
            try await next(request, context)
        }
    }

    /// The shape a middleware takes never changes the task it runs in: over the package's transports, the caller's.
    @Test func bothShapesRunInTheCallersTask() async throws {
        let tasks = Locked<[Int]>([])
        let probe = Probe(tasks: tasks, built: Locked([]))
        let mock = MockTransport(defaultResponse: .json(aliceJSON))
        let caller = withUnsafeCurrentTask { $0.hashValue }
        let _: User = try await Network(transport: mock, middleware: [probe, probe]).send(UserRoute.getUser(id: 1))
        #expect(tasks.withLock { $0 } == [caller, caller])
        let _: User = try await Network(transport: mock, middleware: [Plain(), probe]).send(UserRoute.getUser(id: 1))
        #expect(tasks.withLock { Array($0.dropFirst(2)) } == [caller], "a plain middleware beside it changes nothing")
        #expect(mock.requests.allSatisfy { $0.value(forHTTPHeaderField: "X-Probe") == "1" })
    }

    @Test func aHeadMiddlewareCalledThroughThePlainShapeGetsAndReturnsTheResponse() async throws {
        let url = URL(string: "https://api.example.com/a")!
        let given = try #require(
            HTTPURLResponse(url: url, statusCode: 429, httpVersion: "HTTP/1.1", headerFields: ["Retry-After": "3"]))
        let probe = Probe(tasks: Locked([]), built: Locked([]))
        let middleware: any Middleware = probe
        let (data, response) = try await middleware.intercept(
            URLRequest(url: url), context: RequestContext(timeRemaining: 10)
        ) { request, _ in
            #expect(request.value(forHTTPHeaderField: "X-Probe") == "1")
            return (Data("x".utf8), given)
        }
        #expect(response === given)
        #expect(data == Data("x".utf8))
        #expect(probe.built.withLock { $0 } == [true])
    }

    @Test func thePartsAnswerFieldQueriesAsTheBuiltResponseWould() throws {
        let url = URL(string: "http://127.0.0.1:8080/a")!
        let fields = [("Retry-After", "3"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2")]
        let head = ResponseHead(url: url, statusCode: 429, httpVersion: "HTTP/1.1", fields: fields)
        let built = try head.httpURLResponse()
        for name in ["retry-after", "SET-COOKIE", "X-Missing"] {
            #expect(head.value(forHTTPHeaderField: name) == built.value(forHTTPHeaderField: name))
        }
        #expect(head.url == url)
        #expect(!head.isBuilt)
        #expect(ResponseHead(built).isBuilt)
    }
}
