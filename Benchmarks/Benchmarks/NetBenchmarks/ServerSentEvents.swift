import Benchmark
import Foundation
import Net

/// Decoding typical Server-Sent Events (LLM-style token events: `data: {"token":…}`, an `id:`
/// every tenth event, a named event every fiftieth) handed over in 16 KiB chunks, 1 MiB per
/// iteration: throughput and allocations (divide by the events per MiB the benchmark prints in
/// its name for allocations per event). The comparison with mattt/EventSource's parser is
/// `SSEParseRate` in Tests/EventSourcePeer (Docs/Benchmarks.md §8).
func serverSentEventBenchmarks() {
    let (chunks, events) = typicalEventChunks(mebibytes: 1)
    Benchmark(
        "SSE: decode 1 MiB of typical events (\(events) events, 16 KiB chunks)",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
                             warmupIterations: 3, maxDuration: .seconds(3))
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            var decoder = ServerSentEventDecoder()
            var found: [ServerSentEvent] = []
            var seen = 0
            for chunk in chunks {
                found.removeAll(keepingCapacity: true)
                try decoder.decode(chunk, into: &found)
                seen += found.count
            }
            precondition(seen == events)
            blackHole(seen)
        }
    }

    // A line that spans many chunks is gathered once: the cost grows with its length, not with
    // its length times its number of chunks (a copy of the unfinished line per chunk would).
    let longLine = [Data("data: ".utf8)] + Array(repeating: Data(repeating: 0x78, count: 1_024), count: 1_023) + [Data("\n\n".utf8)]
    Benchmark(
        "SSE: one 1 MiB event in 1 KiB chunks",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 3, maxDuration: .seconds(3))
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            var decoder = ServerSentEventDecoder()
            var found: [ServerSentEvent] = []
            for chunk in longLine { try decoder.decode(chunk, into: &found) }
            precondition(found.count == 1)
            blackHole(found)
        }
    }
}

/// The same event mix as `SSEParseRate`, cut into 16 KiB chunks.
private func typicalEventChunks(mebibytes: Int) -> ([Data], Int) {
    var stream: [UInt8] = []
    var count = 0
    let words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", " Net", " streams", " tokens"]
    while stream.count < mebibytes << 20 {
        if count % 10 == 0 { stream += Array("id: \(count)\n".utf8) }
        if count % 50 == 0 { stream += Array("event: usage\n".utf8) }
        stream += Array("data: {\"token\":\"\(words[count % words.count])\",\"index\":\(count)}\n\n".utf8)
        count += 1
    }
    return (stride(from: 0, to: stream.count, by: 16_384).map { Data(stream[$0..<min(stream.count, $0 + 16_384)]) }, count)
}
