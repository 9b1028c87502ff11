import CHeapProbe
import Foundation
import Synchronization

/// The most heap in use seen while it runs: glibc's `mallinfo2` (bytes in allocated chunks,
/// mmapped ones included; chunks freed into a thread's cache count as in use) read every 5 ms on
/// a thread of its own. Unlike peak resident memory it leaves out code pages, so it shows what a
/// client holds per call in flight: run a workload with 64 calls in flight and with 1, and the
/// difference over 63 is the bytes each call holds (its objects and the async frames its task
/// keeps while it waits).
///
/// Each reading locks every malloc arena in turn, so the sampler costs the process it measures a
/// little: NetLoad runs it in every client alike, and not at all with `NETLOAD_HEAP=0`.
public final class HeapSampler: Sendable {
    private let state = Mutex<(peak: Int, stopped: Bool)>((-1, false))
    private let finished = DispatchSemaphore(value: 0)

    /// Bytes of heap in use now; -1 where `mallinfo2` is not available.
    public static func heapInUseBytes() -> Int { net_bench_heap_in_use() }

    /// Starts sampling.
    public init() {
        let thread = Thread { [self] in
            while true {
                let now = Self.heapInUseBytes()
                let stopped = state.withLock { state in
                    state.peak = max(state.peak, now)
                    return state.stopped
                }
                if stopped { break }
                usleep(5_000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops sampling (after one more reading) and returns the peak in KiB, or `nil` where the
    /// heap cannot be read; later calls return the same.
    public func stop() -> Int? {
        state.withLock { $0.stopped = true }
        finished.wait()
        finished.signal()  // for the next call: the thread has ended and will not signal again
        let peak = state.withLock { $0.peak }
        return peak < 0 ? nil : peak / 1024
    }
}
