import Foundation
import NetCore
import NetTransport
import Testing

// `TransportStreaming`'s checks on each transport, and URLSession's own: a reader that falls
// too far behind.

@Suite("Streamed bodies: URLSessionTransport")
struct URLSessionTransportStreamingTests {
    @Test("URLSessionTransport", arguments: TransportStreaming.checks)
    func streams(_ check: TransportStreaming.Check) async throws {
        try await check.run { URLSessionTransport() }
    }

    /// URLSession cannot hold a server back, so a reader that does not keep up is protected by a
    /// cap on what may wait for it: a server sending 4 GiB to a reader that reads nothing. The
    /// server pauses 1 ms per MiB: FoundationNetworking's `cancel()` waits for its work queue,
    /// which a sender saturating loopback kept busy until the whole body had arrived (measured
    /// with 256 MiB: 252 MiB read after the failure, `cancel()` returning after the completion;
    /// Docs/Linux-notes.md). Should the transport not stop the task, the server sends all 4 GiB
    /// (`finished`, not `closed-by-client`), which takes more than 4 s of pauses alone. (An
    /// unpaced variant that waited for the server to finish was tried and dropped: its 256 MiB,
    /// read at full speed by a transfer whose cancel waited, held one of libdispatch's two threads
    /// and made URLSession requests in the suites running beside it miss their 5 s deadlines in CI.)
    @Test("a reader more than maximumSpooledBytes behind: the kept bytes, then unreadBacklog, and the connection closed")
    func backlogLimit() async throws {
        let key = UUID().uuidString
        let limit: Int64 = 4 << 20
        let client = NetworkClient(transport: URLSessionTransport(configuration: .init(maximumSpooledBytes: limit)))
        let stream = try await client.requestStream(for: TransportStreaming.url("/flood?key=\(key)&size=4294967296&pace=1"))
        defer { FaultServer.shared.release(key) }  // a failed check leaves no flood running
        // Nothing is read until the server sees the close: the transport stopped on its own.
        #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: TransportStreaming.hang),
                "\(FaultServer.shared.events(key))")
        var received = 0
        var intact = true
        var failure: (any Error)?
        do {
            for try await chunk in stream.body {
                intact = intact && TransportStreaming.isPattern(chunk, at: received)
                received += chunk.count
            }
        } catch {
            failure = error
        }
        guard case NetworkError.transport(.responseBodyLimitExceeded(.unreadBacklog(let bytes)))? = failure else {
            Issue.record("expected unreadBacklog, got \(String(describing: failure))")
            return
        }
        #expect(bytes == limit)
        // Every byte kept arrives, in order, before the error: at most the limit.
        #expect(intact && received > 0 && Int64(received) <= limit, "\(received) bytes")
    }
}

#if AsyncHTTPClient  // the package trait
import NetAsyncHTTPClient

@Suite("Streamed bodies: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportStreamingTests {
    @Test("AsyncHTTPClientTransport", arguments: TransportStreaming.checks)
    func streams(_ check: TransportStreaming.Check) async throws {
        try await check.run { AsyncHTTPClientTransport() }
    }
}
#endif
