import Benchmark

// Each area registers its benchmarks; package-benchmark runs them all with
// `swift package --package-path Benchmarks benchmark`. Docs/Benchmarks.md holds the results.
let benchmarks: @Sendable () -> Void = {
    pipelineBenchmarks()
    cacheBenchmarks()
    clientFeatureBenchmarks()
    observabilityBenchmarks()
    streamingBenchmarks()
    serverSentEventBenchmarks()
    httpBenchmarks()
    transferBenchmarks()
    multipartBenchmarks()
    reachabilityBenchmarks()
}
