#if Observability && AsyncHTTPClient  // the package traits
import Foundation
import NetTestSupport
import Testing

@Suite("AsyncHTTPClientTransport leaves tracing to the pipeline")
struct AsyncHTTPClientTracingTests {
    struct ProbeReport: Decodable {
        let wholeStatus: Int, streamedStatus: Int, fileStatus: Int, spanPaths: [String]
    }

    @Test("with a tracer bootstrapped process-wide, neither of AsyncHTTPClient's APIs starts a span of its own for Net's exchanges (its attributes would carry the query unredacted)")
    func noSpanOfItsOwn() async throws {
        let key = UUID().uuidString
        let base = try await ObservedServer.shared.baseURL()
        // `TracingProbe`, beside this test binary: the bootstrap is process-wide and once only.
        let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("TracingProbe").path
        let output = try await runProcessOffPool(probe, ["\(base)/ok/\(key)"])
        let report = try JSONDecoder().decode(ProbeReport.self, from: output)
        #expect(report.wholeStatus == 200)
        #expect(report.streamedStatus == 200)
        #expect(report.fileStatus == 200)  // a download to a file: the async API
        #expect(ObservedServer.arrivals.value.filter { $0.path.contains(key) }.count == 3)
        #expect(report.spanPaths.isEmpty, "spans: \(report.spanPaths)")
    }
}
#endif
