// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the code that reads hostile input: the netlink message parser, URL and
// query building, header validation, multipart name/filename encoding, curl rendering and the Server-Sent Events decoder. Built
// and run by `Tests/Fuzz/run` (see Docs/Security-testing.md); each executable's entry point hands
// its `fuzz` function to libFuzzer's driver (`CFuzzDriver`), and everything is built with
// `-sanitize=fuzzer,address`, so AddressSanitizer turns any memory error into a crash with a reproducer.
//
// A package of its own, depending on the root by path, so the root's `swift test` never builds it.
// SwiftPM names a path dependency after its directory, and a clone's directory can be called
// anything, so the root's identity is read from where this manifest sits (two levels down).
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { String($0).lowercased() } ?? "net"

let package = Package(
    name: "NetFuzz",
    dependencies: [.package(path: "../..")],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
        .executableTarget(name: "FuzzNetlink", dependencies: ["FuzzSupport", .product(name: "NetReachability", package: root)]),
        .executableTarget(name: "FuzzURLQuery", dependencies: ["FuzzSupport", .product(name: "NetCore", package: root)]),
        .executableTarget(name: "FuzzHeaders", dependencies: ["FuzzSupport", .product(name: "NetCore", package: root)]),
        .executableTarget(name: "FuzzMultipartNames", dependencies: [
            "FuzzSupport", .product(name: "NetCore", package: root), .product(name: "NetMultipart", package: root),
        ]),
        .executableTarget(name: "FuzzCurl", dependencies: ["FuzzSupport", .product(name: "NetCore", package: root)]),
        .executableTarget(name: "FuzzServerSentEvents", dependencies: ["FuzzSupport", .product(name: "NetCore", package: root)]),
    ],
    swiftLanguageModes: [.v6]
)
