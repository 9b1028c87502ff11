// swift-tools-version:6.1
import PackageDescription

// Library products depend on no other package: users get Net without a dependency tree.
// Integrations that need a package are opt-in products behind package traits (trait = the
// integration's name, product `Net<Integration>`, no default traits): a package dependency used only
// under a trait is not even fetched for a consumer that leaves the trait off. Docs/Architecture.md
// has the pattern; `.ci/run` proves both sides as a consumer from a Git URL.
let package = Package(
    name: "Net",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Net", targets: ["Net"]),
        .library(name: "NetCore", targets: ["NetCore"]),
        .library(name: "NetTransport", targets: ["NetTransport"]),
        .library(name: "NetMultipart", targets: ["NetMultipart"]),
        .library(name: "NetReachability", targets: ["NetReachability"]),
        // Opt-in: empty unless the consumer enables the trait `AsyncHTTPClient`.
        .library(name: "NetAsyncHTTPClient", targets: ["NetAsyncHTTPClient"]),
        // Opt-in: empty unless the consumer enables the trait `Observability`.
        .library(name: "NetObservability", targets: ["NetObservability"]),
        // Opt-in: empty unless the consumer enables the trait `OpenAPI`.
        .library(name: "NetOpenAPI", targets: ["NetOpenAPI"]),
    ],
    traits: [
        .trait(name: "AsyncHTTPClient", description: "NetAsyncHTTPClient: AsyncHTTPClientTransport on swift-server/async-http-client (SwiftNIO)."),
        .trait(name: "Observability", description: "NetObservability: ObservabilityInterceptor logging through swift-log, recording swift-metrics and tracing with swift-distributed-tracing."),
        .trait(name: "OpenAPI", description: "NetOpenAPI: NetOpenAPITransport, a swift-openapi-runtime ClientTransport over any NetworkSession, and conversions to and from swift-http-types."),
    ],
    dependencies: [
        // Resolved only for a consumer that enables the trait `AsyncHTTPClient` (all already
        // dependencies of AsyncHTTPClient itself).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Resolved only for a consumer that enables the trait `Observability`.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Resolved only for a consumer that enables the trait `OpenAPI`.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Test-only peers: no library product depends on them, so SwiftPM never resolves them for users.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        .target(name: "NetCore"),
        .target(name: "NetTransport", dependencies: ["NetCore"]),
        .target(name: "NetMultipart", dependencies: ["NetCore"]),
        // Linux's netlink headers for NetReachability; it depends on nothing but Glibc and this shim.
        .target(name: "CNetlink"),
        .target(name: "NetReachability", dependencies: [.target(name: "CNetlink", condition: .when(platforms: [.linux]))]),
        .target(name: "Net", dependencies: ["NetCore", "NetTransport", "NetMultipart", "NetReachability"]),
        // Without the trait its sources compile to a placeholder that names the trait.
        .target(name: "NetAsyncHTTPClient", dependencies: [
            "NetTransport",
            .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
            // Its decompression-limit error, to report which limit a body broke.
            .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: .when(traits: ["AsyncHTTPClient"])),
            // Its SOCKS errors, to tell a proxy that wants credentials from one that fails.
            .product(name: "NIOSOCKS", package: "swift-nio-extras", condition: .when(traits: ["AsyncHTTPClient"])),
            // TLS settings, and the relay that checks public-key pins (PinningRelay).
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
            .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
            .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
        ]),
        .target(name: "NetObservability", dependencies: [
            "NetTransport",
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
            .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
        ]),
        .target(name: "NetOpenAPI", dependencies: [
            "NetTransport",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
        ]),
        // Shared by the test targets: a posix_spawn process runner and a seeded random generator.
        .target(name: "NetTestSupport", path: "Tests/NetTestSupport"),
        .testTarget(name: "NetCoreTests", dependencies: ["NetCore", "NetTestSupport"]),
        // Not a product: `.ci/run` builds it and checks with `ldd` what NetCore alone links.
        .executableTarget(name: "NetCoreLinkProbe", dependencies: ["NetCore"], path: "Tests/LinkProbes/NetCoreLinkProbe"),
        // Not a product: a daemon linking only NetReachability, run by the tests inside network
        // namespaces; `.ci/run` checks with `ldd` that it loads no Foundation library.
        .executableTarget(name: "ReachabilityDaemon", dependencies: ["NetReachability"], path: "Tests/LinkProbes/ReachabilityDaemon"),
        // The umbrella, and the documentation's samples (the worked example's JSON fixtures included).
        .testTarget(name: "NetTests", dependencies: ["Net"], resources: [.copy("Fixtures")]),
        // Not a product: fetches through a disk cache in a process of its own, so the tests can show
        // the cache surviving a restart.
        .executableTarget(name: "CacheProbe", dependencies: ["NetTransport"], path: "Tests/LinkProbes/CacheProbe"),
        // URLSessionTransport against a real HTTP server on 127.0.0.1; the session layer on StubTransport.
        .testTarget(name: "NetTransportTests", dependencies: [
            "NetTransport", "NetTestSupport", "CacheProbe",
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // The transport conformance and fault suites, run for URLSessionTransport and, with the trait
        // `AsyncHTTPClient` on (`swift test --enable-all-traits`), for AsyncHTTPClientTransport.
        .testTarget(name: "NetTransportConformanceTests", dependencies: [
            "Net", "NetTransport", "NetAsyncHTTPClient", "NetTestSupport", "URLSessionFaultProbe", "LoadProbe", "StreamProbe",
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // Not a product: the load test's client and server in a process of their own, so its
        // memory and descriptor figures are its own.
        .executableTarget(name: "LoadProbe", dependencies: ["NetTransport"], path: "Tests/LinkProbes/LoadProbe"),
        // Not a product: a 1 GiB streamed body read by a slow consumer in a process of its own, so
        // the peak memory it reports is the stream's.
        .executableTarget(name: "StreamProbe", dependencies: ["NetTransport", "NetAsyncHTTPClient"], path: "Tests/LinkProbes/StreamProbe"),
        // Not a product: one request through URLSessionTransport in a process of its own, for the
        // one server fault that stops the process inside FoundationNetworking.
        .executableTarget(name: "URLSessionFaultProbe", dependencies: ["NetTransport"], path: "Tests/LinkProbes/URLSessionFaultProbe"),
        // Not a product: encodes a large file part in its own process, so the memory test reads a
        // peak RSS that nothing else inflates.
        .executableTarget(name: "MultipartEncodeProbe", dependencies: ["NetMultipart"], path: "Tests/LinkProbes/MultipartEncodeProbe"),
        // Forms round-tripped through parsers we did not write: multipart-kit, and a real server.
        .testTarget(name: "NetMultipartTests", dependencies: [
            "NetMultipart", "NetTransport", "NetTestSupport", "MultipartEncodeProbe",
            .product(name: "MultipartKit", package: "multipart-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // NetObservability with swift-log's, swift-metrics' and swift-distributed-tracing's test
        // backends, against a real server on 127.0.0.1 (`swift test --enable-all-traits`).
        .testTarget(name: "NetObservabilityTests", dependencies: [
            "Net", "NetObservability", "NetAsyncHTTPClient", "NetTestSupport", "TracingProbe",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        // Not a product: AsyncHTTPClientTransport with a tracer bootstrapped process-wide, in a
        // process of its own because the bootstrap is once only and reaches every later client.
        // Its tracing dependencies only with the trait `Observability`, like NetObservability's.
        .executableTarget(name: "TracingProbe", dependencies: [
            "NetTransport", "NetAsyncHTTPClient",
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
        ], path: "Tests/LinkProbes/TracingProbe"),
        // A client and server generated from Tests/NetOpenAPITests/OpenAPI/openapi.yaml (committed;
        // `regenerate` makes them again): the server on Hummingbird, the client on
        // NetOpenAPITransport over both of Net's transports (`swift test --enable-all-traits`), and
        // on swift-openapi-urlsession and swift-openapi-async-http-client for comparison.
        .testTarget(name: "NetOpenAPITests", dependencies: [
            "Net", "NetOpenAPI", "NetAsyncHTTPClient", "NetTestSupport",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ], exclude: ["OpenAPI"]),
        // Depends on the daemon so `swift test` builds it: the namespace tests run it as a process.
        .testTarget(name: "NetReachabilityTests", dependencies: ["NetReachability", "CNetlink", "ReachabilityDaemon", "NetTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
