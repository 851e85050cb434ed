// libFuzzer's driver, which `-sanitize=fuzzer` links in: `runFuzzer` (FuzzDriver), each fuzz executable's main, hands
// it the command line and the target's one-input function, since SwiftPM gives every executable a main of its own.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*one_input)(const uint8_t *data, size_t size));
