import Foundation
import NetworkLayer

#if os(Linux)

    // Sends through the proxy that `https_proxy` names (libcurl reads it from the environment, which a test cannot set for
    // its own process without proxying every other test): streams BASE/missing and sends BASE/ok, printing one line for
    // each, for the proxy test in CurlTransport's suites; given a WebSocket echo URL, echoes a message through the proxy
    // that `http_proxy` names.

    struct Get: URLRequestProtocol {
        let url: URL
    }

    let arguments = CommandLine.arguments
    guard arguments.count == 3 || arguments.count == 4, let base = URL(string: arguments[1]) else {
        FileHandle.standardError.write(Data("usage: networklayer-proxy-child BASE CA-FILE [WEBSOCKET-ECHO-URL]\n".utf8))
        exit(2)
    }
    let network = Network(
        transport: try CurlTransport(additionalTrustedCertificates: URL(fileURLWithPath: arguments[2])), timeout: 10)
    do {
        let response = try await network.stream(Get(url: base.appendingPathComponent("missing")))
        var body = Data()
        for try await chunk in response.body { body.append(chunk) }
        print("stream \(response.statusCode) \(String(decoding: body, as: UTF8.self))")
    } catch {
        if case .unacceptableStatus(let status, _, let body) = error as? NetworkError {
            print("stream \(status) \(String(decoding: body, as: UTF8.self))")
        } else {
            print("stream error \(error)")
        }
    }
    do {
        let body: Data = try await network.send(Get(url: base.appendingPathComponent("ok")))
        print("send \(String(decoding: body, as: UTF8.self))")
    } catch {
        print("send error \(error)")
    }
    // With a WebSocket echo URL: a ws:// socket through `http_proxy`, which tunnels it with CONNECT.
    if arguments.count == 4, let echo = URL(string: arguments[3]) {
        do {
            let socket = try await network.webSocket(Get(url: echo))
            try await socket.send(.text("through the proxy"))
            var messages = socket.messages.makeAsyncIterator()
            print("websocket \(try await messages.next().map { "\($0)" } ?? "nothing")")
            await socket.close()
        } catch {
            print("websocket error \(error)")
        }
    }
    // Out before the process ends: under the address sanitizer, a leak report ends it with `_exit`, which would drop
    // what is still buffered for the pipe.
    fflush(nil)
#else
    // CurlTransport exists on Linux only; the proxy test that runs this child is Linux-only too.
    FileHandle.standardError.write(Data("networklayer-proxy-child needs Linux (CurlTransport)\n".utf8))
    exit(2)
#endif
