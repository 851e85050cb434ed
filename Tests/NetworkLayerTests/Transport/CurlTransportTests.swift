#if os(Linux)
    import Foundation
    import NetworkLayer
    import HTTPTestServer
    import TLSTestServer
    import Testing

    @testable import NetworkLayer

    @Suite("CurlTransport")
    struct CurlTransportTests {
        @Test func itIsTheDefaultTransportOnLinux() {
            #expect(Network.default.transport is CurlTransport)
            #expect(CurlTransport.libraryDescription?.hasPrefix("libcurl ") == true)
        }

        @Test func itsDefaultsAreDocumented() throws {
            let transport = try CurlTransport()
            #expect(transport.redirectPolicy == .default)
            #expect(transport.maximumResponseSize == 100 * 1024 * 1024)
            #expect(transport.maximumHeaderSize == 256 * 1024)
            #expect(transport.maximumConnectionsPerHost == 16)
            #expect(transport.additionalTrustedCertificates == nil)
            #expect(transport.threadCount == CurlTransport.defaultThreadCount)
            #expect((1...8).contains(CurlTransport.defaultThreadCount))
        }

        @Test func concurrentSendsUseEveryThreadWithinTheConnectionLimit() async throws {
            let server = try TestHTTPServer { _ in .delayed(milliseconds: 300, .json(aliceJSON)) }
            defer { server.stop() }
            let transport = try CurlTransport(maximumConnectionsPerHost: 4, threadCount: 2)
            #expect(transport.threadCount == 2)
            let network = Network(transport: transport)
            let url = server.baseURL.appendingPathComponent("users/1").absoluteString
            try await withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<12 { group.addTask { try await network.send(TestRoute(url)) } }
                for try await user in group { #expect(user == alice) }
            }
            #expect(server.requests.count == 12)
            // Two threads of two connections each: one thread alone could open two.
            #expect(server.acceptedConnections == 4)
        }

        @Test func aTransportHasNoMoreThreadsThanConnectionsPerHost() throws {
            #expect(try CurlTransport(maximumConnectionsPerHost: 1, threadCount: 4).threadCount == 1)
        }

        @Test func anExtraAuthorityIsAddedToTheSystemsNotPutInTheirPlace() throws {
            let certificates = try TestCertificates()
            guard
                case .blob(let bundle) = try CurlTransport.trustedCertificates(
                    adding: certificates.authority.certificate)
            else {
                Issue.record("libcurl 7.77 or later takes the certificates from memory")
                return
            }
            let system = try #require(
                CurlLibrary.defaultCertificateBundle.flatMap { FileManager.default.contents(atPath: $0.path) })
            let added = try Data(contentsOf: certificates.authority.certificate)
            #expect(bundle.starts(with: system))
            #expect(bundle.suffix(added.count) == added)
        }

        @Test func aFileWithoutACertificateIsRefused() throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-certificate-\(UUID()).pem")
            try Data("hello".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect {
                _ = try CurlTransport(additionalTrustedCertificates: file)
            } throws: { error in
                String(describing: error).contains("holds no PEM certificate")
            }
        }
    }
#endif
