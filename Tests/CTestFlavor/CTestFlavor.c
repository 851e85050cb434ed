// Chooses the tests' flavor (NETWORKLAYER_TEST_FLAVOR) as the test process starts, before any test, or any code of the
// package a test calls, reads it: the package takes each per-platform decision from a flavor that is chosen once and
// never changes (PlatformFlavor), and Swift Testing runs no code of ours before its first test. The choice itself is
// Swift (TestFlavor.swift, networklayer_tests_adopt_flavor); this file only calls it from a constructor.
//
// Linux only: on Apple platforms the flavor is the build's own, which needs no choosing, and an Xcode that links the
// package's C targets as frameworks of their own could not resolve a call into the test bundle.
#include "CTestFlavor.h"

#if defined(__linux__)
extern void networklayer_tests_adopt_flavor(void);

static int chosen = 0;

__attribute__((constructor)) static void networklayer_tests_choose_flavor(void) {
    networklayer_tests_adopt_flavor();
    chosen = 1;
}

int networklayer_tests_flavor_chosen_at_start(void) { return chosen; }
#else
int networklayer_tests_flavor_chosen_at_start(void) { return 0; }
#endif
