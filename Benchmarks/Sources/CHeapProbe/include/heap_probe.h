#ifndef NET_BENCH_HEAP_PROBE_H
#define NET_BENCH_HEAP_PROBE_H

/// Bytes in the heap's allocated chunks, mmapped ones included (glibc's `mallinfo2`); -1 where
/// the C library has no `mallinfo2` (it is not in Swift's Glibc module, hence this shim).
long net_bench_heap_in_use(void);

#endif
