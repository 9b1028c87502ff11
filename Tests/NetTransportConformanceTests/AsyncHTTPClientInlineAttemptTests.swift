#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
@testable import NetAsyncHTTPClient
import NetCore
@testable import NetTransport
import Testing

/// Which calls on AsyncHTTPClientTransport run their attempts in the caller's task
/// (Docs/Architecture.md, stage 1): those whose every exchange stops on the deadline by itself, a
/// body read whole into memory with no request body or one sent whole, on a transport that never
/// waits for a relay; and only on a client whose transport is not wrapped by another stage.
@Suite("AsyncHTTPClientTransport: the calls whose attempts run in the caller's task")
struct AsyncHTTPClientInlineAttemptTests {
    static let plain = AsyncHTTPClientTransport()

    static func request(body: NetworkRequestBody = .none, use: ResponseBodyUse) throws -> NetworkRequest {
        let method: NetworkHttpMethod = if case .none = body { .get } else { .put }
        var request = try NetworkRequest(url: "http://127.0.0.1:9/x", httpMethod: method, body: body)
        request.responseBodyUse = use
        return request
    }

    @Test("a body read whole, with no request body or one sent whole: stops by itself; streamed, to a file or sent in parts: does not")
    func byTheCallsKind() throws {
        #expect(Self.plain.stopsExchangesOnDeadline(try Self.request(use: .inMemory)))
        #expect(Self.plain.stopsExchangesOnDeadline(try Self.request(body: .data(Data(count: UploadChunks.chunkSize)), use: .inMemory)))
        #expect(!Self.plain.stopsExchangesOnDeadline(try Self.request(body: .data(Data(count: UploadChunks.chunkSize + 1)), use: .inMemory)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-inline-\(UUID().uuidString)")
        #expect(!Self.plain.stopsExchangesOnDeadline(try Self.request(body: .file(file), use: .inMemory)))
        #expect(!Self.plain.stopsExchangesOnDeadline(try Self.request(use: .streamed)))
        #expect(!Self.plain.stopsExchangesOnDeadline(try Self.request(use: .toFile)))
    }

    @Test("a transport that may wait for a relay (a pinned host, a SOCKS proxy with a password) does not stop by itself")
    func relaysKeepTheTask() throws {
        let pin = "sha256//" + Data(count: 32).base64EncodedString()
        let pinned = AsyncHTTPClientTransport(configuration: .init(tls: TLSSettings(pinnedPublicKeys: try PublicKeyPins().pinning(host: "example.com", pin))))
        func socks(password: String?) -> AsyncHTTPClientTransport {
            let proxy = NetworkProxy(kind: .socks5, host: "127.0.0.1", port: 9,
                                     credentials: password.map { .init(username: "user", password: $0) })
            return AsyncHTTPClientTransport(configuration: .init(proxy: ProxyConfiguration(proxy: proxy)))
        }
        let direct = try Self.request(use: .inMemory)
        #expect(!pinned.stopsExchangesOnDeadline(direct) && !socks(password: "secret").stopsExchangesOnDeadline(direct))
        // AsyncHTTPClient speaks SOCKS5 without a password itself: no relay, so no task.
        #expect(socks(password: nil).stopsExchangesOnDeadline(direct))
    }

    @Test("a client on it runs attempts inline unless its transport is wrapped (limit, cache, cookies, shared GETs) or an interceptor may wait")
    func byTheClientsStages() {
        #expect(NetworkClient(transport: Self.plain).fixedSettings.deadlineStoppable != nil)
        #expect(NetworkClient(transport: Self.plain, interceptors: [RetryPolicy(), LoggingInterceptor { _ in }]).fixedSettings.deadlineStoppable != nil)
        #expect(NetworkClient(transport: Self.plain, maximumConcurrentRequests: 4).fixedSettings.deadlineStoppable == nil)
        #expect(NetworkClient(transport: Self.plain, cache: .memory()).fixedSettings.deadlineStoppable == nil)
        #expect(NetworkClient(transport: Self.plain, cookieJar: CookieJar()).fixedSettings.deadlineStoppable == nil)
        #expect(NetworkClient(transport: Self.plain, sharesIdenticalGETs: true).fixedSettings.deadlineStoppable == nil)
        #expect(NetworkClient(transport: Self.plain, interceptors: [Waits()]).fixedSettings.deadlineStoppable == nil)
    }
}

/// `AsyncHTTPClientTransport.Configuration` is `Sendable` (README: every public type is), or this
/// file would not compile.
private let configurationIsSendable: any Sendable.Type = AsyncHTTPClientTransport.Configuration.self

/// An interceptor that does not declare that its `interceptRequest` never waits.
private struct Waits: NetworkInterceptor {}
#endif
