import Foundation
import NetCore
import NetTestSupport
import NetTransport
import Testing

/// `NetworkCallResult.whenFinished`: a call interceptor learns when a call is over, which for
/// `requestStream` is when the caller is done with the body, not when the head arrives.
@Suite("NetworkCallResult.whenFinished: a call ends with its body")
struct NetworkCallEndTests {
    /// Records, in order, the head's arrival and how the call ended.
    struct EndRecorder: NetworkCallInterceptor {
        let events = LockedValue<[String]>([])
        let ends = LockedValue<[NetworkCallEnd]>([])

        func interceptCall(
            _ request: NetworkRequest, proceed: @Sendable (NetworkRequest) async -> NetworkCallResult
        ) async throws -> NetworkCallResult {
            let result = await proceed(request)
            events.withLock { $0.append("head, streams: \(result.streamsBody)") }
            return result.whenFinished { [events, ends] end in
                let how = end.bodyDropped ? "dropped" : end.error.map { "failed: \(NetworkMetrics.errorType(of: $0))" } ?? "finished"
                events.withLock { $0.append(how) }
                ends.withLock { $0.append(end) }
            }
        }
    }

    /// A client on a stub that gives every request `response`, with a recorder as its interceptor.
    func answering(_ response: StubResponse) -> (client: NetworkClient, recorder: EndRecorder) {
        let stub = StubTransport()
        stub.on(nil, "*", respond: response)
        let recorder = EndRecorder()
        return (NetworkClient(transport: stub, interceptors: [recorder]), recorder)
    }

    /// Past the stub's one-chunk size: a body in chunks, not handed over whole.
    static let inChunks = StubResponse.text(String(repeating: "x", count: 1 << 20))
    /// Shorter than its `Content-Length`: reading it fails at its end.
    static let cutShort = StubResponse.status(.ok, headers: [NetworkHeader(name: "Content-Length", value: "100")], body: Data("short".utf8))

    @Test("a stream read to its end: the call ends after the last chunk, with the body's size and bodyComplete")
    func streamReadToEnd() async throws {
        let (client, recorder) = answering(.text("streamed"))
        try await readToEnd(client, recorder)
        // Once only: the body's copies, gone now, do not end it again as dropped.
        #expect(recorder.events.value == ["head, streams: true", "finished"])
    }

    func readToEnd(_ client: NetworkClient, _ recorder: EndRecorder) async throws {
        let stream = try await client.requestStream(for: "https://api.example.com/s")
        #expect(recorder.events.value == ["head, streams: true"])
        var read = 0
        for try await chunk in stream.body {
            #expect(recorder.events.value == ["head, streams: true"])  // not over while chunks come
            read += chunk.count
        }
        #expect(read == 8)
        #expect(recorder.events.value == ["head, streams: true", "finished"])
        let end = try #require(recorder.ends.value.first)
        let attempt = try #require(end.metrics.attempts.last)
        #expect(end.response?.statusCode == 200)
        #expect(attempt.responseBodyBytes == 8)
        let (headTime, bodyTime) = (try #require(attempt.time(of: .firstByte)), try #require(attempt.time(of: .bodyComplete)))
        #expect(headTime <= bodyTime)
        #expect(try #require(end.metrics.duration) >= bodyTime)
        // The caller's own copy keeps the head-time metrics the documentation promises.
        #expect(stream.metrics.attempts.last?.time(of: .bodyComplete) == nil)
    }

    @Test("a stream dropped unread ends the call as dropped, without a body size")
    func streamDropped() async throws {
        let (client, recorder) = answering(Self.inChunks)
        do {
            let stream = try await client.requestStream(for: "https://api.example.com/s")
            #expect(stream.statusCode == 200)
            #expect(recorder.events.value == ["head, streams: true"])
        }
        #expect(recorder.events.value == ["head, streams: true", "dropped"])
        #expect(recorder.ends.value.first?.metrics.attempts.last?.responseBodyBytes == nil)
    }

    @Test("a body handed over whole and dropped unread ends the call as finished: nothing was left to read")
    func wholeBodyDropped() async throws {
        let (client, recorder) = answering(.text("already here"))
        do {
            let stream = try await client.requestStream(for: "https://api.example.com/s")
            #expect(stream.statusCode == 200)
        }
        #expect(recorder.events.value == ["head, streams: true", "finished"])
        #expect(recorder.ends.value.first?.metrics.attempts.last?.responseBodyBytes == 12)
    }

    @Test("a stream whose body fails (shorter than its Content-Length) ends the call with the body's error")
    func streamFailed() async throws {
        let (client, recorder) = answering(Self.cutShort)
        let stream = try await client.requestStream(for: "https://api.example.com/s")
        await #expect(throws: NetworkError.self) {
            for try await _ in stream.body {}
        }
        let events = recorder.events.value
        #expect(events.count == 2 && events[1].hasPrefix("failed: "))
        #expect(recorder.ends.value.first?.error is NetworkError)
    }

    @Test("a call whose body the session reads is over when the result comes back: the handler runs at once")
    func wholeCall() async throws {
        let (client, recorder) = answering(.text("whole"))
        let response = try await client.requestData(for: "https://api.example.com/d")
        #expect(response.data.count == 5)
        #expect(recorder.events.value == ["head, streams: false", "finished"])
        #expect(recorder.ends.value.first?.metrics == response.metrics)
    }

    @Test("a failed call is over at once, with its error")
    func failedCall() async throws {
        let (client, recorder) = answering(.failure(.cannotConnect("refused")))
        await #expect(throws: NetworkError.self) {
            _ = try await client.requestStream(for: "https://api.example.com/s")
        }
        #expect(recorder.events.value == ["head, streams: false", "failed: cannotConnect"])
    }

    @Test("LoggingInterceptor: a stream's head says its body goes to the caller, and the body's end gets its own line")
    func loggingStream() async throws {
        let stub = StubTransport()
        stub.on(nil, "/large", respond: Self.inChunks)
        stub.on(nil, "/short", respond: Self.cutShort)
        stub.on(nil, "*", respond: .text("streamed"))
        let lines = LockedValue<[String]>([])
        let client = NetworkClient(transport: stub, interceptors: [LoggingInterceptor { line in lines.withLock { $0.append(line) } }])
        let stream = try await client.requestStream(for: "https://api.example.com/s?token=hunter2")
        #expect(lines.value.count == 2)
        #expect(lines.value.last?.hasSuffix("body left for the caller's stream") == true)
        for try await _ in stream.body {}
        #expect(lines.value.count == 3)
        #expect(lines.value.last?.hasPrefix("[Net] ← body of ") == true && lines.value.last?.hasSuffix(": 8 bytes") == true)
        do {
            let dropped = try await client.requestStream(for: "https://api.example.com/large")
            #expect(dropped.statusCode == 200)
        }
        #expect(lines.value.last?.hasSuffix("dropped before its end") == true)
        #expect(!lines.value.joined().contains("hunter2"))
        let short = try await client.requestStream(for: "https://api.example.com/short")
        await #expect(throws: NetworkError.self) { for try await _ in short.body {} }
        #expect(lines.value.last?.hasPrefix("[Net] ✗ body of ") == true)
        // A reading task cancelled part-way: "dropped", as Sessions.md says, not an error line.
        await Self.readFromCancelledTask(try await client.requestStream(for: "https://api.example.com/large"))
        #expect(lines.value.last?.hasPrefix("[Net] ← body of ") == true && lines.value.last?.hasSuffix("dropped before its end") == true,
                "\(lines.value.last ?? "")")
    }

    @Test("a stream collected past its limit ends the call with the limit's error at once, not later as dropped")
    func collectedPastLimit() async throws {
        let (client, recorder) = answering(.text("twelve bytes"))
        let stream = try await client.requestStream(for: "https://api.example.com/s")
        await #expect(throws: NetworkError.self) { _ = try await stream.body.collect(upTo: 4) }
        #expect(recorder.events.value == ["head, streams: true", "failed: responseBodyLimitExceeded"])
        _ = stream  // alive until here: the end above came from the limit, not from a drop
    }

    @Test("a stream whose reading task is cancelled ends the call as dropped, not as failed")
    func readerCancelled() async throws {
        let (client, recorder) = answering(Self.inChunks)
        await Self.readFromCancelledTask(try await client.requestStream(for: "https://api.example.com/s"))
        #expect(recorder.events.value == ["head, streams: true", "dropped"])
        #expect(recorder.ends.value.first?.error == nil)
    }

    /// Reads `stream`'s body from a task cancelled before it starts: the body ends with
    /// `CancellationError`, not as complete.
    static func readFromCancelledTask(_ stream: NetworkStreamResponse) async {
        let start = AsyncSignal()
        let reader = Task {
            await start.wait()
            for try await _ in stream.body {}
        }
        reader.cancel()
        start.fire()
        await #expect(throws: CancellationError.self) { try await reader.value }
    }
}
