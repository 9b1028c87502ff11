// swift-tools-version:6.0
import PackageDescription

// mattt/EventSource 1.1.1 as an independent Server-Sent Events parser to hold Net's decoder to.
// Its package does not build on Linux (its EventSource actor calls `URLSession.bytes`, which
// FoundationNetworking lacks), so `fetch` copies its unmodified sources from the tag into
// Sources/MatttEventSource/Upstream (not in git) and `LinuxShim.swift` supplies a `bytes(for:)`
// that throws. Only its parser is used. `.ci/run` runs `fetch` and then `swift test` here.
//
// A package of its own, depending on the root by path, like Tests/Fuzz; the root's identity is
// read from where this manifest sits (two levels down).
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { String($0).lowercased() } ?? "net"

let package = Package(
    name: "EventSourcePeer",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(name: "MatttEventSource"),
        .testTarget(name: "EventSourceParityTests", dependencies: ["MatttEventSource", .product(name: "NetCore", package: root)]),
        // The parse-rate comparison (Docs/Benchmarks.md): `swift run -c release SSEParseRate`.
        .executableTarget(name: "SSEParseRate", dependencies: ["MatttEventSource", .product(name: "NetCore", package: root)]),
    ],
    swiftLanguageModes: [.v6]
)
