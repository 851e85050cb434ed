import Foundation
import Testing

@testable import NetworkLayer
@testable import NetworkLayerCore
@testable import NetworkLayerCurl
@testable import NetworkLayerMiddleware
@testable import NetworkLayerOffline
@testable import NetworkLayerSupport

@Suite("PEM: certificates from a file")
struct PEMTests {
    @Test func pemFilesAreReadBlockByBlock() {
        let pem = Data(
            """
            junk before
            -----BEGIN CERTIFICATE-----
            AQID
            BA==
            -----END CERTIFICATE-----
            -----BEGIN CERTIFICATE-----
            not base64 !!
            -----END CERTIFICATE-----
            -----BEGIN CERTIFICATE-----
            BQY=
            -----END CERTIFICATE-----
            """.utf8)
        #expect(PEM.certificates(in: pem) == [Data([1, 2, 3, 4]), Data([5, 6])])
    }
}
