// The declaration in include/CFuzzDriver.h is the whole target; libFuzzer defines the function.
#include "CFuzzDriver.h"
