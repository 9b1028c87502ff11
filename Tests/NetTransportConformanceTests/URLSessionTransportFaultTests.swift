import Foundation
import NetTestSupport
import NetTransport
import Testing

/// `URLSessionTransport` against the fault suite (`TransportFaults.faults`, shared with every
/// transport: AsyncHTTPClientTransportFaultTests runs it too).
@Suite("Transport faults: URLSessionTransport")
struct URLSessionTransportFaultTests {
    @Test("URLSessionTransport", arguments: TransportFaults.faults)
    func survives(_ fault: TransportFaults.Fault) async throws {
        try await fault.run(TransportFaults.Subject(
            make: { URLSessionTransport() }, makeLimited: { URLSessionTransport(configuration: .init(responseLimits: $0)) },
            ratioNeedsContentLength: true, crashesOnHeadersCutByClose: true, failsOnNonUTF8HeaderValue: true,
            deliversTruncatedGzipAsWhole: true))
    }

    /// The one fault URLSessionTransport cannot survive, proven in a child process so the claim in
    /// Docs/Linux-notes.md and SECURITY.md stays true: when a toolchain fixes FoundationNetworking
    /// this test fails, and the cut points come back into the suite above.
    @Test("a server closing inside the header block stops the process inside FoundationNetworking")
    func headerCutStopsTheProcess() async throws {
        let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("URLSessionFaultProbe").path
        let statusLine = FaultServer.statusLineLength
        for at in [statusLine, statusLine + 10] {
            do {
                let output = try await runProcessOffPool(probe, ["\(FaultServer.shared.baseURL)/cut?size=1000&at=\(at)"])
                Issue.record("survived a close at byte \(at) of the header block: \(String(decoding: output, as: UTF8.self))")
            } catch let failure as CommandFailed {
                #expect(failure.description.contains("Transfer completed, but there's no response"), "\(failure)")
            }
        }
        // A reset at the same point is an error, not a crash: the probe reports it and exits 0.
        let output = try await runProcessOffPool(probe, ["\(FaultServer.shared.baseURL)/cut?size=1000&at=\(statusLine + 10)&reset=1"])
        #expect(String(decoding: output, as: UTF8.self).hasPrefix("error Transport failure: connection lost"))
    }
}
