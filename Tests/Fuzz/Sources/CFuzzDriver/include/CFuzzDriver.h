#ifndef C_FUZZ_DRIVER_H
#define C_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver (from the runtime `-sanitize=fuzzer` links) on `test` with the
/// process's arguments. SwiftPM gives each executable an entry point of its own name
/// (`<Target>_main`), so the targets call this from it instead of relying on libFuzzer's `main`.
int NetFuzzRun(int argc, char **argv, int (*test)(const uint8_t *data, size_t size));

#endif
