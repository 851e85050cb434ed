// The tests' flavor, chosen as the test process starts (Linux): see CTestFlavor.c.
#ifndef NETWORKLAYER_CTESTFLAVOR_H
#define NETWORKLAYER_CTESTFLAVOR_H

/// Whether the flavor was chosen at the process's start: 1 once the start-up hook has run, 0 otherwise.
int networklayer_tests_flavor_chosen_at_start(void);

#endif
