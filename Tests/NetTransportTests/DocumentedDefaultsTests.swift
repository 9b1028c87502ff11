import Foundation
import NetCore
import NetTransport
import Testing

/// The defaults the documents state (Sessions, Transports, Streaming, Caching, Linux notes), read
/// from the types themselves: a changed default fails here before a document goes stale.
@Suite("The documented defaults")
struct DocumentedDefaultsTests {
    /// A session that states nothing but its transport: every other property is the protocol's.
    actor BareSession: NetworkSession {
        nonisolated let transport: any Transport = StubTransport()
    }

    @Test("a session: 5 retries, 10 redirects followed, a 60 s deadline, no per-attempt timeout")
    func session() async {
        let session = BareSession()
        #expect(await session.maximumRetryCount == 5)
        #expect(await session.redirectPolicy == .follow(limit: 10))
        #expect(await session.timeout == .seconds(60))
        #expect(await session.attemptTimeout == nil)
    }

    @Test("limits: 256 MiB in memory (a shared GET's too), 100 times the compressed size, 1 GiB spooled, 8 connections per host")
    func limits() {
        #expect(ResponseLimits().maximumInMemoryBodySize == 256 << 20)
        #expect(SharedRequestsTransport(StubTransport()).maximumBodySize == 256 << 20)
        #expect(ResponseLimits().decompression == .ratio(100))
        #expect(URLSessionTransport.Configuration().maximumSpooledBytes == 1 << 30)
        #expect(URLSessionTransport.Configuration().maximumConnectionsPerHost == 8)
    }

    @Test("RetryPolicy: 2 retries from 0.5 s doubling to 30 s, ±20 % jitter, Retry-After up to 60 s, 408/429/500/502/503/504")
    func retryPolicy() {
        let policy = RetryPolicy()
        #expect(policy.maximumRetries == 2)
        #expect(policy.baseDelay == .milliseconds(500) && policy.multiplier == 2 && policy.maximumDelay == .seconds(30))
        #expect(policy.jitter == 0.2)
        #expect(policy.maximumRetryAfter == .seconds(60) && policy.honoursRetryAfter)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504] as HTTPCodes)
        #expect(!policy.retriesNonIdempotentMethods)
    }

    @Test("refreshes: 5 within 30 s; event sources: 3 s retry, 30 s cap, 8 empty connections; caches: 16 MiB in memory, 4 MiB an entry")
    func refreshesEventsCaches() {
        #expect(RefreshWindow().maximumRefreshes == 5 && RefreshWindow().interval == .seconds(30))
        let reconnection = EventSourceReconnection()
        #expect(reconnection.defaultRetry == .seconds(3) && reconnection.maximumDelay == .seconds(30))
        #expect(reconnection.maximumAttempts == 8)
        #expect(reconnection.delay(retry: nil, failures: 20) == .seconds(30))
        #expect(MemoryCacheStorage().byteLimit == 16 << 20)
        #expect(HTTPCache().maximumEntrySize == 4 << 20)
    }

    @Test("TLS settings: TLS 1.2 at least, the system's roots, no client certificate, no pins (TLS-and-proxies.md)")
    func tls() {
        let settings = TLSSettings()
        #expect(settings.minimumVersion == .tls12)
        #expect(settings.trustedRoots == .system)
        #expect(settings.clientIdentity == nil && settings.pinnedPublicKeys == PublicKeyPins())
    }

    @Test("HAR: 1,000 entries, 1 MiB a body, 64 MiB of bodies and 16 MiB of heads in all (Testing.md)")
    func har() {
        let recorder = HARRecorder()
        #expect(recorder.maximumEntries == 1_000 && recorder.maximumBodySize == 1 << 20)
        #expect(recorder.maximumTotalBodySize == 64 << 20 && recorder.maximumTotalHeadSize == 16 << 20)
    }
}
