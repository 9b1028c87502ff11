// swift-tools-version:6.1
import PackageDescription

// Net's benchmarks: a package of its own, so that package-benchmark, Hummingbird and
// AsyncHTTPClient never reach users of the library. Run them with
//
//     swift package --package-path Benchmarks benchmark
//
// SwiftPM names a path dependency after its directory, and a clone's directory can be called
// anything, so the root's identity is read from where this manifest sits.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "net"

let package = Package(
    name: "NetBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The root with its traits `AsyncHTTPClient` and `Observability` on, for the opt-in products.
        .package(path: "..", traits: ["AsyncHTTPClient", "Observability", "OpenAPI"]),
        // The no-op backends `NetObservability` is measured with (already dependencies of the root's trait).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The published OpenAPI transports NetOpenAPITransport is compared with (test dependencies of the root).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        // glibc's `mallinfo2`, which Swift's Glibc module does not declare (HeapSampler).
        .target(name: "CHeapProbe"),
        // The loopback server, the peers' clients and process probes (resident memory, heap, descriptors).
        .target(name: "BenchmarkSupport", dependencies: [
            "CHeapProbe",
            .product(name: "Net", package: root),
            .product(name: "NetAsyncHTTPClient", package: root),
            .product(name: "NetObservability", package: root),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // A side-by-side load driver (one client per process, server in another) for profiling and ratios.
        // Sources/NetLoad/OpenAPIGenerated links the root's generated OpenAPI test client (one copy).
        .executableTarget(name: "NetLoad", dependencies: [
            "BenchmarkSupport",
            .product(name: "Net", package: root),
            .product(name: "NetAsyncHTTPClient", package: root),
            .product(name: "NetOpenAPI", package: root),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
        ]),
        .executableTarget(
            name: "NetBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Net", package: root),
                .product(name: "NetAsyncHTTPClient", package: root),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/NetBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v6]
)
