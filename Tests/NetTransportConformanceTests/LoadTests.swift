import Foundation
import NetTestSupport
import Testing

/// Many requests through one session, in a process of their own (`LoadProbe`). `swift test` sends
/// 20,000; `Tests/stress` (`NET_LOAD_REQUESTS=100000 swift test --filter LoadTests`) sends the
/// full 100,000. See Docs/Security-testing.md.
@Suite("Load and memory probes, each in a process of its own, one at a time", .serialized)
struct LoadTests {
    struct Sample: Decodable { let done: Int, residentKB: Int, descriptors: Int, sockets: Int, threads: Int }
    struct Report: Decodable { let requests: Int, failures: Int, firstFailure: String?, samples: [Sample] }

    @Test("no failures; descriptors level, memory within FoundationNetworking's own growth")
    func manyRequests() async throws {
        let requests = ProcessInfo.processInfo.environment["NET_LOAD_REQUESTS"].flatMap(Int.init) ?? 20_000
        let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("LoadProbe").path
        let output = try await runProcessOffPool(probe, [String(requests), "64"])
        let report = try JSONDecoder().decode(Report.self, from: output)
        print("LoadProbe: \(String(decoding: output, as: UTF8.self))")
        #expect(report.failures == 0, "first failure: \(report.firstFailure ?? "")")
        let first = try #require(report.samples.first), last = try #require(report.samples.last)
        try #require(report.samples.count == 3 && first.done == requests / 10 && last.done == requests)
        // Files, pipes and event descriptors must stay level: a leak of one in 2,000 requests
        // shows. Open connections move with load (18–50 sockets at the same point in different
        // runs: libcurl's pool of up to 64 and the server's socket per connection), so sockets may
        // grow by one pool on each side and no more: a socket leaked once in every 150 of the
        // 18,000 requests between the samples still shows above it.
        let others = report.samples.map { $0.descriptors - $0.sockets }
        #expect(others[others.count - 1] - others[0] <= 8, "descriptors other than sockets \(others)")
        #expect(last.sockets - first.sockets <= 2 * 64, "sockets \(report.samples.map(\.sockets))")
        // Threads are reported, not bounded: the in-process server runs one per connection, and
        // libdispatch grows its pool with load.
        // FoundationNetworking itself keeps ~0.15 KiB per request (raw URLSession in Benchmarks
        // §5, "memory over time"); anything Net adds on top shows above this bound.
        // Under ThreadSanitizer the growth is mostly the sanitizer's own (25 to 106 MB in four runs
        // of 2026-12-02, against 13 MB allowed a plain run): reported there, not judged; every
        // plain run and AddressSanitizer's judge it.
        Self.expectGrowth(last.residentKB - first.residentKB, atMost: (8_192 + requests * 25 / 100) * TestTiming.memoryScale,
                          of: "LoadProbe resident memory \(report.samples.map(\.residentKB))", judgedUnderThreadSanitizer: false)
    }

    /// Holds a probe's memory growth to `allowedKB`; a probe whose growth under ThreadSanitizer is
    /// the sanitizer's own (`judgedUnderThreadSanitizer: false`) prints it there instead.
    static func expectGrowth(_ grewKB: Int, atMost allowedKB: Int, of what: String, judgedUnderThreadSanitizer: Bool,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        guard judgedUnderThreadSanitizer || TestTiming.sanitizer != "thread" else {
            print("\(what) under ThreadSanitizer: grew \(grewKB) KB (not judged)")
            return
        }
        #expect(grewKB <= allowedKB, "\(what): grew \(grewKB) KB", sourceLocation: sourceLocation)
    }
}
