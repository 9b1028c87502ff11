// swift-tools-version:6.0
import PackageDescription

// An opt-in transport on swift-server/async-http-client for Linux servers and daemons. A package of
// its own: only those who add it resolve AsyncHTTPClient; Net's library products stay dependency-free.
//
// SwiftPM names a path dependency after its directory, and a clone's directory can be called
// anything, so the root's identity is read from where this manifest sits (two levels down).
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { String($0).lowercased() } ?? "net"

let package = Package(
    name: "NetAsyncHTTPClient",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "NetAsyncHTTPClient", targets: ["NetAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Test-only: the loopback server.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .target(name: "NetAsyncHTTPClient", dependencies: [
            .product(name: "NetTransport", package: root),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        .testTarget(name: "NetAsyncHTTPClientTests", dependencies: [
            "NetAsyncHTTPClient",
            .product(name: "Net", package: root),
            .product(name: "NetTransport", package: root),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
