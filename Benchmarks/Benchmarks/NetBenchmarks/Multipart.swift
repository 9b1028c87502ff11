import Benchmark
import BenchmarkSupport
import Foundation
import Net

/// 3. Encoding a form with one file part, next to plainly reading the same file
/// (targets: peak memory flat in the file size, throughput at least half of plain reading).
func multipartBenchmarks() {
    let sizes: [(label: String, bytes: Int)] = [("1 MiB", 1 << 20), ("100 MiB", 100 << 20), ("1 GiB", 1 << 30)]
    for size in sizes {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal, .peakMemoryResident, .throughput], timeUnits: .milliseconds,
            warmupIterations: 1, maxDuration: .seconds(size.bytes > 200 << 20 ? 8 : 3), maxIterations: size.bytes > 200 << 20 ? 5 : 1_000)

        Benchmark("Multipart encode \(size.label) file part", configuration: configuration) { benchmark in
            let file = try ProcessProbe.scratchFile(size: size.bytes)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let form = try NetworkMultipartForm(parts: [NetworkMultipartFormFileRequest(name: "file", fileURL: file)])
                var reader = form.bodyStream().makeReader()
                var total = 0
                while let chunk = try await reader.next() { total += chunk.count }
                precondition(Int64(total) == form.contentLength)
            }
        }

        Benchmark("Plain read \(size.label) file (64 KiB reads)", configuration: configuration) { benchmark in
            let file = try ProcessProbe.scratchFile(size: size.bytes)
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let descriptor = open(file.path, O_RDONLY)
                precondition(descriptor >= 0)
                var total = 0
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count <= 0 { break }
                    total += count
                }
                close(descriptor)
                precondition(total == size.bytes)
            }
        }
    }
}
