#if Observability  // the package trait
import Foundation
import Hummingbird
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Net
#if AsyncHTTPClient  // the package trait
import NetAsyncHTTPClient
#endif
import NetObservability
import NetTestSupport
import NIOCore
import Testing
import Tracing

/// `/held/:key`: writes `first`, then waits until the test releases the key, then writes `-rest`.
enum HeldBodyServer {
    private static let releases = LockedValue<[String: AsyncSignal]>([:])

    static func signal(_ key: String) -> AsyncSignal {
        releases.withLock { releases in
            if let signal = releases[key] { return signal }
            let signal = AsyncSignal()
            releases[key] = signal
            return signal
        }
    }

    static let shared = SharedLoopbackServer {
        let router = Router()
        router.get("/held/:key") { _, context in
            let key = context.parameters.get("key") ?? ""
            return Response(status: .ok, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "first"))
                await signal(key).wait()
                try await writer.write(ByteBuffer(string: "-rest"))
                try await writer.finish(nil)
            })
        }
        // Writes `first`, waits for the release, then fails: the connection ends mid-body.
        router.get("/cut/:key") { _, context in
            let key = context.parameters.get("key") ?? ""
            return Response(status: .ok, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "first"))
                await signal(key).wait()
                throw CancellationError()
            })
        }
        return router
    }
}

/// A `requestStream` call is one request until its body ends: its span, its log line and
/// `http.client.active_requests` end then, not at the head (on both transports).
@Suite("ObservabilityInterceptor: a streamed call ends with its body")
struct StreamedCallObservationTests {
    let tracer = W3CTestTracer()
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()

    static let transports: [any Transport] = {
        var transports: [any Transport] = [ObservabilityInterceptorTests.transport]
#if AsyncHTTPClient  // the package trait
        transports.append(AsyncHTTPClientTransport())
#endif
        return transports
    }()

    func client(_ transport: any Transport) -> NetworkClient {
        var logger = Logger(label: "net-test") { [logs] _ in logs }
        logger.logLevel = .debug
        let observability = ObservabilityInterceptor(logger: logger, metricsFactory: metrics, tracer: tracer)
        return NetworkClient(transport: transport, interceptors: [observability])
    }

    func activeRequests(_ base: URL) throws -> [Double] {
        let port = String(try #require(base.port))
        let target = [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", port), ("url.scheme", "http")]
        return try metrics.expectMeter("http.client.active_requests", target).values
    }

    /// The call's span once the call has ended on its own, after the body's end came from another
    /// task (a cancelled reader, a failed body): no span left open, the request no longer active.
    func endedCall(_ base: URL) async throws -> FinishedInMemorySpan {
        #expect(await eventually(within: TestTiming.hangGuard) { tracer.base.activeSpans.isEmpty })
        #expect(try activeRequests(base) == [1, 0])
        return try #require(tracer.base.finishedSpans.first { $0.parentSpanID == nil })
    }

    @Test("read to its end: active, with the call's span open and no call line, until the last chunk", arguments: transports.indices)
    func readToEnd(transportIndex: Int) async throws {
        let key = UUID().uuidString
        let base = try await HeldBodyServer.shared.baseURL()
        defer { HeldBodyServer.signal(key).fire() }  // a failed check leaves no handler waiting
        let stream = try await client(Self.transports[transportIndex]).requestStream(for: "\(base)/held/\(key)")
        var chunks = stream.body.makeAsyncIterator()
        var received = try #require(try await chunks.next())
        // The server holds the rest: the call is still in flight.
        #expect(try activeRequests(base) == [1])
        #expect(tracer.base.activeSpans.count == 1)  // the call's; the attempt's ended with its head
        #expect(!logs.entries.contains { $0.level == .info })
        HeldBodyServer.signal(key).fire()
        while let chunk = try await chunks.next() { received.append(chunk) }
        #expect(String(decoding: received, as: UTF8.self) == "first-rest")
        #expect(try activeRequests(base) == [1, 0])
        #expect(tracer.base.activeSpans.isEmpty)
        let call = try #require(tracer.base.finishedSpans.first { $0.parentSpanID == nil })
        #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(call.attributes["net.body_dropped"] == nil)
        let line = try #require(logs.entries.last)
        #expect(line.level == .info && line.message.description.contains("→ 200 in "))
        #expect(line.metadata["net.body_dropped"] == nil)
    }

    @Test("dropped before its end: the call ends then, marked net.body_dropped", arguments: transports.indices)
    func dropped(transportIndex: Int) async throws {
        let key = UUID().uuidString
        let base = try await HeldBodyServer.shared.baseURL()
        defer { HeldBodyServer.signal(key).fire() }  // lets the server's handler end
        do {
            let stream = try await client(Self.transports[transportIndex]).requestStream(for: "\(base)/held/\(key)")
            var chunks = stream.body.makeAsyncIterator()
            _ = try await chunks.next()
            #expect(try activeRequests(base) == [1])
        }
        #expect(try activeRequests(base) == [1, 0])
        #expect(tracer.base.activeSpans.isEmpty)
        let call = try #require(tracer.base.finishedSpans.first { $0.parentSpanID == nil })
        #expect(call.attributes["net.body_dropped"]?.toSpanAttribute() == .bool(true))
        #expect(logs.entries.last?.metadata["net.body_dropped"]?.description == "true")
    }

    @Test("a reader cancelled mid-body: the call ends then, marked net.body_dropped, not an error", arguments: transports.indices)
    func cancelledReader(transportIndex: Int) async throws {
        let key = UUID().uuidString
        let base = try await HeldBodyServer.shared.baseURL()
        defer { HeldBodyServer.signal(key).fire() }
        let stream = try await client(Self.transports[transportIndex]).requestStream(for: "\(base)/held/\(key)")
        let firstChunk = AsyncSignal()
        let reader = Task {
            var chunks = stream.body.makeAsyncIterator()
            _ = try await chunks.next()
            firstChunk.fire()
            return try await chunks.next()  // the server holds the rest
        }
        await firstChunk.wait()
        reader.cancel()
        _ = await reader.result
        let call = try await endedCall(base)
        #expect(call.attributes["net.body_dropped"]?.toSpanAttribute() == .bool(true))
        #expect(call.attributes["error.type"] == nil, "a cancelled reader is not an error")
    }

    @Test("a body that fails mid-way: the call ends then, with its error, not as dropped", arguments: transports.indices)
    func failedBody(transportIndex: Int) async throws {
        let key = UUID().uuidString
        let base = try await HeldBodyServer.shared.baseURL()
        defer { HeldBodyServer.signal(key).fire() }
        let stream = try await client(Self.transports[transportIndex]).requestStream(for: "\(base)/cut/\(key)")
        var chunks = stream.body.makeAsyncIterator()
        _ = try await chunks.next()
        #expect(try activeRequests(base) == [1])
        HeldBodyServer.signal(key).fire()
        await #expect(throws: NetworkError.self) { while try await chunks.next() != nil {} }
        let call = try await endedCall(base)
        #expect(call.attributes["error.type"] != nil, "the body's failure is the call's outcome")
        #expect(call.attributes["net.body_dropped"] == nil)
    }
}
#endif
