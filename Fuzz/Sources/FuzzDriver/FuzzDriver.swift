import CFuzzDriver

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Runs libFuzzer on `oneInput`, with the corpus directory and options of the command line, and ends the process
/// with libFuzzer's status: the whole `main` of each fuzz target (SwiftPM gives every executable a main of its own,
/// which hides libFuzzer's).
public func runFuzzer(_ oneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argumentCount = CommandLine.argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argumentCount, &arguments, oneInput))
}
