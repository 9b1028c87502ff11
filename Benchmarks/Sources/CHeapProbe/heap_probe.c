#include "heap_probe.h"
#include <stdlib.h>  /* defines __GLIBC__ where the C library is glibc */

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

long net_bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long)(info.uordblks + info.hblkhd);
}
#else
long net_bench_heap_in_use(void) { return -1; }
#endif
