import CTestFlavor
import Foundation
import NetworkLayerSupport
import Testing

@testable import NetworkLayerOffline

/// Whose decisions the package takes in this test run: the build's own, or, with `NETWORKLAYER_TEST_FLAVOR=apple` on
/// Linux, Apple's, so that the code a Mac runs runs here too (`PlatformFlavor`).
///
/// The choice is made once, as the test process starts (`CTestFlavor`, which calls ``adoptFromEnvironment()``),
/// before any test or any code of the package reads it. In the Apple flavor on Linux, stand-ins play what
/// Apple's platforms have and Linux lacks: a bound stream pair (``StandInBoundStreams``) and a path monitor that
/// reports as `NWPathMonitor` does (``StandInPathMonitor``). The URLSession under the transport stays
/// FoundationNetworking's: what it does by itself is no decision (`URLSessionEngine`); what the tests know Apple's
/// does differently, they play with ``AppleURLSessionDouble`` where FoundationNetworking cannot.
enum TestFlavor {
    /// The environment variable that names the flavor: `apple`, `linux`, or unset for the build's own.
    static let variable = "NETWORKLAYER_TEST_FLAVOR"

    /// Whether the package takes Apple's decisions in this run.
    static var isApple: Bool { PlatformFlavor.current.isApple }

    /// The flavor the environment names, or `nil` when it names none (the build's own); a value that names no
    /// flavor, or one this build cannot take, is a failure that says so.
    static func named(in environment: [String: String]) -> Result<PlatformFlavor?, FlavorError> {
        guard let name = environment[variable], !name.isEmpty else { return .success(nil) }
        guard let platform = PlatformFlavor.Platform(rawValue: name) else {
            return .failure(FlavorError(description: "\(variable)=\(name) names no flavor: apple or linux"))
        }
        if platform == PlatformFlavor.build.platform { return .success(PlatformFlavor.build) }
        guard platform == .apple else {
            return .failure(
                FlavorError(
                    description: "\(variable)=\(name): Linux's decisions run on Linux only, where its URLSession is"))
        }
        return .success(.apple(standIns: standIns))
    }

    /// The stand-ins of the Apple flavor on Linux.
    static let standIns = PlatformFlavor.StandIns(
        boundStreams: { size, sendEnded in StandInBoundStreams.make(bufferSize: size, sendEnded: sendEnded) },
        pathMonitor: { StandInPathMonitor() })

    /// Adopts the flavor the environment names; stops the process, saying why, when it names none this build can
    /// take. Called once, as the process starts.
    static func adoptFromEnvironment() {
        switch named(in: ProcessInfo.processInfo.environment) {
        case .success(let flavor?):
            if flavor.platform != PlatformFlavor.build.platform { PlatformFlavor.adopt(flavor) }
        case .success(nil):
            break
        case .failure(let error):
            fatalError(error.description)
        }
    }

    /// The path watcher of a queue whose replays a test counts: on Apple's decisions, one on a stand-in monitor that
    /// reports at once (on a Mac too, where the system's monitor could report a change of the runner's network in the
    /// middle of a count); none on Linux's.
    static func pathWatcher() -> PathWatcher? {
        isApple ? PathWatcher(monitor: StandInPathMonitor()) : nil
    }

    /// Whether the flavor was chosen as the process started (Linux), before any decision read it.
    static var wasChosenAtStart: Bool { networklayer_tests_flavor_chosen_at_start() == 1 }

    struct FlavorError: Error, CustomStringConvertible, Equatable {
        let description: String
    }
}

/// The start-up hook `CTestFlavor` calls before any test runs.
@_cdecl("networklayer_tests_adopt_flavor")
public func networklayerTestsAdoptFlavor() {
    TestFlavor.adoptFromEnvironment()
}
