import FuzzDriver

// libFuzzer runs `fuzzOneInput` on inputs it makes, from the corpus directory named on the command line (a closure:
// the function itself, passed as a C function, would define its C name a second time).
runFuzzer { data, size in fuzzOneInput(data, size) }
