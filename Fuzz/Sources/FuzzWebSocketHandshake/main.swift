import CFuzzDriver

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

// libFuzzer runs `fuzzOneInput` on inputs it makes, from the corpus directory named on the command line.
var argumentCount = CommandLine.argc
var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argumentCount, &arguments) { data, size in fuzzOneInput(data, size) })
