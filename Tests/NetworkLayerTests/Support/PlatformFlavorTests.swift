import Foundation
import Testing

@testable import NetworkLayerSupport

@Suite("The tests' flavor: whose decisions the package takes")
struct PlatformFlavorTests {
    @Test func theFlavorTheEnvironmentNamesIsTheOneThePackageFollows() throws {
        let named = try TestFlavor.named(in: ProcessInfo.processInfo.environment).get()
        let expected = named ?? PlatformFlavor.build
        #expect(PlatformFlavor.current.platform == expected.platform)
        if expected.platform != PlatformFlavor.build.platform {
            #expect(TestFlavor.wasChosenAtStart, "chosen as the process started, before any decision read it")
            #expect(PlatformFlavor.current.standIns != nil, "what the build lacks is played by stand-ins")
        }
    }

    @Test func theEnvironmentNamesAFlavorOrNoneAndAnythingElseIsAFailureThatSaysSo() throws {
        #expect(try TestFlavor.named(in: [:]).get() == nil)
        #expect(try TestFlavor.named(in: [TestFlavor.variable: ""]).get() == nil)
        let apple = try #require(try TestFlavor.named(in: [TestFlavor.variable: "apple"]).get())
        #expect(apple.isApple)
        #expect((apple.standIns != nil) == (PlatformFlavor.build.platform != .apple), "stand-ins where the build lacks")
        guard case .failure(let error) = TestFlavor.named(in: [TestFlavor.variable: "macos"]) else {
            Issue.record("a name that is no flavor was taken")
            return
        }
        #expect(error.description.contains("apple or linux"))
        let linux = TestFlavor.named(in: [TestFlavor.variable: "linux"])
        if PlatformFlavor.build.platform == .linux {
            #expect(try linux.get()?.platform == .linux)
        } else {
            #expect(throws: TestFlavor.FlavorError.self, "Linux's decisions need Linux's URLSession") {
                try linux.get()
            }
        }
    }

    #if os(macOS) || os(Linux)
        /// What a stopped process said on its standard error.
        static func said(_ result: ExitTest.Result?) -> String {
            String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        }

        @Test func aFlavorAdoptedAfterADecisionReadOneStopsTheProcess() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = PlatformFlavor.current
                PlatformFlavor.adopt(.build)
            }
            #expect(Self.said(result).contains("a flavor was adopted or read already"), "\(Self.said(result))")
        }

        @Test func anotherPlatformsDecisionsWithoutStandInsStopTheProcess() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let other: PlatformFlavor.Platform = PlatformFlavor.build.platform == .apple ? .linux : .apple
                PlatformFlavor.adopt(PlatformFlavor(platform: other, standIns: nil))
            }
            #expect(Self.said(result).contains("needs stand-ins"), "\(Self.said(result))")
        }
    #endif
}
