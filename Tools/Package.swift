// swift-tools-version:6.1
import PackageDescription

// The `net` command-line tool. A package of its own so that swift-argument-parser and
// AsyncHTTPClient never reach users of the library; it depends on the root package by path with
// the trait `AsyncHTTPClient` on (its `NetAsyncHTTPClient` product).
//
// SwiftPM names a path dependency after its directory, and a clone's directory can be called
// anything, so the root's identity is read from where this manifest sits.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "net"

let package = Package(
    name: "NetTools",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "net", targets: ["net"]),
    ],
    dependencies: [
        .package(path: "..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Everything but `main`: the commands, item parsing and output, testable in-process.
        .target(name: "NetCLI", dependencies: [
            .product(name: "Net", package: root),
            .product(name: "NetAsyncHTTPClient", package: root),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "net", dependencies: ["NetCLI"]),
        // The CLI as a process, against a local HTTP server (Python's http.server: an
        // independent peer that needs no build) and inside network namespaces.
        .testTarget(name: "NetCLITests", dependencies: ["NetCLI", "net"], exclude: ["echo-server.py"]),
    ],
    swiftLanguageModes: [.v6]
)
