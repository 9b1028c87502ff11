#include "CFuzzDriver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Set once, before the driver starts, by NetFuzzRun.
static int (*current_test)(const uint8_t *data, size_t size);

/// The runtime's object files refer to this symbol, so it must exist; it forwards to the target's test.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return current_test ? current_test(data, size) : 0;
}

int NetFuzzRun(int argc, char **argv, int (*test)(const uint8_t *data, size_t size)) {
    current_test = test;
    return LLVMFuzzerRunDriver(&argc, &argv, test);
}
