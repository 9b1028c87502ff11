import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// Docs/Sessions.md, "AuthenticationInterceptor": the header an interceptor signs with is a
/// credential whatever its name, for the cache's per-credential keys and for HAR redaction too,
/// not only for the redirect rule. The name here is in no list of known credential headers.
@Suite("A credential header of the interceptor's own name")
struct CustomCredentialHeaderTests {
    static let field = "X-Tenant-Secret"

    @Test("the cache keeps each user's answers apart and the HAR archive never holds the value")
    func cacheAndArchive() async throws {
        #expect(!NetworkRedaction.isSensitiveHeader(Self.field), "a name the redaction lists already would prove nothing")
        let (id, url) = try await HTTPCacheTests.resource(["cc": "max-age=60"])
        let cache = HTTPCache.memory()
        let recorder = HARRecorder()
        func client(_ token: String) -> NetworkClient {
            let signing = AuthenticationInterceptor<String>(credential: token, header: { .header(key: Self.field, value: $0) },
                                                            refresh: { $0 ?? token })
            return NetworkClient(transport: recorder.recording(URLSessionTransport()), interceptors: [signing], cache: cache)
        }
        let (alice, bob) = (client("alice-7f3a"), client("bob-91c2"))
        #expect(try await alice.requestData(for: url).response.cacheStatus == .network)
        #expect(try await alice.requestData(for: url).response.cacheStatus == .cache)
        // Without the mark the header would not key the entry, and Bob would get Alice's answer.
        #expect(try await bob.requestData(for: url).response.cacheStatus == .network)
        #expect(try await HTTPCacheTests.hits(id) == (2, 0))

        let archive = String(decoding: try recorder.archive.encoded(), as: UTF8.self)
        #expect(recorder.archive.log.entries.count == 2)
        #expect(!archive.contains("alice-7f3a") && !archive.contains("bob-91c2"))
        let sent = recorder.archive.log.entries.compactMap { $0.request.headers.first { $0.name == Self.field }?.value }
        #expect(sent == ["REDACTED", "REDACTED"])
    }
}
