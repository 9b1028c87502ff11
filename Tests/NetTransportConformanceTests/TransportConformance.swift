import Synchronization
import Foundation
import NetCore
import NetTransport
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// Behaviour every `Transport` must show, written once and run against each transport: a package
/// with a transport runs `TransportConformance.checks` in a parameterized test (see
/// `URLSessionTransportConformanceTests` and `AsyncHTTPClientTransportConformanceTests`).
///
/// Both transports pass every check today. A transport that cannot do something must not skip the
/// check: its runner replaces it with one that expects the typed error it gives instead, with the
/// reason in the check's name, so the gap is stated and still tested. (StubTransport is not run
/// here: these checks need a real server, and the stub's own tests cover what it promises.)
enum TransportConformance {
    /// One behaviour, named.
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (any Transport) async throws -> Void
        var testDescription: String { name }
    }

    static func url(_ path: String) async throws -> URL {
        try await ConformanceServer.shared.baseURL().appendingPathComponent(path)
    }

    static func request(_ path: String, method: NetworkHttpMethod = .get, headers: [NetworkHeader]? = nil,
                        body: NetworkRequestBody = .none, timeout: Duration? = nil) async throws -> NetworkRequest {
        let base = try await ConformanceServer.shared.baseURL()
        return try NetworkRequest(url: base.absoluteString + path, httpMethod: method, headers: headers, body: body, timeout: timeout)
    }

    /// `/echo`'s first line: method, path, query, body length, body hash.
    struct Echo {
        let method: String, path: String, query: String, bodyLength: Int, bodyHash: UInt64, headers: [String]
        init(_ data: Data) throws {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            let fields = try #require(lines.first).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 5)
            (method, path, query) = (fields[0], fields[1], fields[2])
            bodyLength = Int(fields[3]) ?? -1
            bodyHash = UInt64(fields[4]) ?? 0
            headers = Array(lines.dropFirst())
        }
    }

    static func temporaryFile(_ contents: Data? = nil) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-conformance-\(UUID().uuidString)")
        if let contents { try contents.write(to: url) }
        return url
    }

    static let distinctNames = ["X-Zulu", "X-Alpha", "X-Mike", "X-Bravo", "X-Yankee", "X-Charlie", "X-Oscar", "X-Delta"]

    /// The header lines `/echo` received for ``distinctNames``, in arrival order.
    static func distinctNamesEchoed(by transport: any Transport) async throws -> [String] {
        let response = try await transport.send(try await request("/echo", headers: distinctNames.map { .header(key: $0, value: $0.lowercased()) }))
        return try Echo(response.body).headers.filter { line in distinctNames.contains { line.hasPrefix($0 + ":") } }
    }

    /// `NetworkRequest` documents its header fields as sent in order.
    static let distinctHeaderOrder = Check(name: "distinct header names arrive in the order written") { transport in
        let echoed = try await distinctNamesEchoed(by: transport)
        #expect(echoed == distinctNames.map { "\($0): \($0.lowercased())" })
    }

    /// What ``distinctHeaderOrder`` becomes for a transport that cannot keep the order: every
    /// field still arrives with its value.
    static let distinctHeadersInAnyOrder = Check(name: "distinct header names all arrive, in any order (declared limitation)") { transport in
        let echoed = try await distinctNamesEchoed(by: transport)
        #expect(Set(echoed) == Set(distinctNames.map { "\($0): \($0.lowercased())" }) && echoed.count == distinctNames.count)
    }

    static let checks: [Check] = [
        distinctHeaderOrder,
        Check(name: "every method reaches the server as itself") { transport in
            for method in [NetworkHttpMethod.get, .post, .put, .patch, .delete, .options] {
                let response = try await transport.send(try await request("/echo", method: method))
                #expect(try Echo(response.body).method == method.rawValue)
            }
            let head = try await transport.send(try await request("/echo", method: .head))
            #expect(head.head.statusCode == 200 && head.body.isEmpty)
        },
        Check(name: "headers (repeated, in order) and query arrive as written") { transport in
            let query = "q=C%2B%2B%20%26%20Swift&tag=a&tag=b"
            let response = try await transport.send(try await request("/echo?\(query)", headers: [
                .header(key: "X-Trace", value: "1"), .header(key: "X-Trace", value: "2"), .header(key: "X-Empty", value: ""),
            ]))
            let echo = try Echo(response.body)
            #expect(echo.query == query)
            // Repeated fields may arrive as one combined field (RFC 9110 §5.3); the values and their order may not change.
            let trace = echo.headers.filter { $0.hasPrefix("X-Trace:") }.map { $0.dropFirst("X-Trace: ".count) }.joined(separator: ", ")
            #expect(trace == "1, 2")
        },
        Check(name: "bodies from memory, a file and a stream are sent whole (2 MB)") { transport in
            let body = ConformanceServer.pattern(count: 2_000_000)
            let file = try temporaryFile(body)
            defer { try? FileManager.default.removeItem(at: file) }
            let stream = NetworkBodyStream(length: Int64(body.count)) {
                AsyncStream { continuation in
                    stride(from: 0, to: body.count, by: 100_000).forEach { continuation.yield(body.subdata(in: $0..<min(body.count, $0 + 100_000))) }
                    continuation.finish()
                }
            }
            for source in [NetworkRequestBody.data(body), .file(file), .stream(stream)] {
                let echo = try Echo(try await transport.send(try await request("/echo", method: .put, body: source)).body)
                #expect(echo.bodyLength == body.count && echo.bodyHash == ConformanceServer.hash(body))
            }
        },
        Check(name: "upload progress from memory, a file and a stream rises to the body's length") { transport in
            let body = ConformanceServer.pattern(count: 1_000_000)
            let file = try temporaryFile(body)
            defer { try? FileManager.default.removeItem(at: file) }
            let stream = NetworkBodyStream(length: Int64(body.count)) { AsyncStream { $0.yield(body); $0.finish() } }
            for source in [NetworkRequestBody.data(body), .file(file), .stream(stream)] {
                let reports = ProgressLog()
                let response = try await transport.send(try await request("/echo", method: .put, body: source)) { reports.append($0) }
                #expect(try Echo(response.body).bodyLength == body.count)
                let sent = reports.all.filter { $0.direction == .upload }
                #expect(!sent.isEmpty, "no upload progress for \(source)")
                #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, "\(sent)")
                #expect(sent.last?.completedBytes == Int64(body.count) && sent.last?.expectedBytes == Int64(body.count))
            }
        },
        Check(name: "a streamed body that throws its own error fails the call with that error, as thrown") { transport in
            struct SourceGone: Error, Equatable {}
            // Unknown length (chunked on AsyncHTTPClient) and past 1 MiB (spooled on URLSession).
            let stream = NetworkBodyStream(length: nil) {
                AsyncThrowingStream<Data, any Error> { continuation in
                    continuation.yield(Data(count: 1_500_000))
                    continuation.finish(throwing: SourceGone())
                }
            }
            await #expect(throws: SourceGone()) {
                _ = try await transport.send(try await request("/echo", method: .put, body: .stream(stream)))
            }
        },
        Check(name: "responses arrive whole in memory and in a file (4 MB), with download progress") { transport in
            let expected = ConformanceServer.pattern(count: 4_000_000)
            let memory = try await transport.send(try await request("/bytes/4000000"))
            #expect(memory.body == expected)
            let file = try temporaryFile()
            defer { try? FileManager.default.removeItem(at: file) }
            let reports = ProgressLog()
            let onDisk = try await transport.send(try await request("/bytes/4000000"), to: .file(file)) { reports.append($0) }
            #expect(onDisk.fileURL == file && onDisk.body.isEmpty && onDisk.bodyByteCount == 4_000_000)
            #expect(try Data(contentsOf: file) == expected)
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber == 0o600, "a body on disk is private")
            #expect(reports.all.last?.completedBytes == 4_000_000)
        },
        Check(name: "301/302 turn POST into GET, 303 into GET, 307/308 resend method and body") { transport in
            let body = Data("payload".utf8)
            for (code, method) in [(301, "GET"), (302, "GET"), (303, "GET"), (307, "POST"), (308, "POST")] {
                let response = try await transport.send(try await request("/redirect/\(code)?to=/echo", method: .post, body: .data(body)))
                let echo = try Echo(response.body)
                #expect(echo.method == method, "\(code)")
                #expect(echo.bodyLength == (method == "POST" ? body.count : 0), "\(code)")
            }
        },
        Check(name: "more redirects than the limit end in tooManyRedirects") { transport in
            do {
                _ = try await transport.send(try await request("/redirect/302?loop=1", timeout: TestTiming.hangGuard))
                Issue.record("a redirect loop ended")
            } catch let error as NetworkError {
                guard case .transport(.tooManyRedirects) = error else { Issue.record("\(error)"); return }
            }
        },
        Check(name: "the timeout is a deadline: 0.5 s ends a stalled request in about 0.5 s") { transport in
            // Never early; and not late, judged by the fastest of up to twenty tries (stopping at
            // the first in time), since a loaded test process may resume any of them late, for
            // seconds on end while other suites beside it fill Swift's pool (seen: five in a row
            // 0.93–0.95 s late beside two busy processes). Under 0.9 s: a deadline rounded to whole
            // seconds (URLSession's own timeout is) would take 1 s in every try.
            let bound = TestTiming.scaled(.milliseconds(900))
            var fastest = Duration.seconds(3_600)
            for _ in 0..<20 {
                let started = ContinuousClock.now
                do {
                    _ = try await transport.send(try await request("/delay/5000", timeout: .milliseconds(500)))
                    Issue.record("a stalled request succeeded")
                } catch let error as NetworkError {
                    // Net's own deadline fired, not a transport's timer (URLSession's rounds to
                    // whole seconds): the bound below stretches under sanitizers, this does not.
                    guard case .transport(let failure) = error, TransportFaults.isTimeout(failure) else { Issue.record("\(error)"); return }
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(500), "timed out early, after \(elapsed)")
                fastest = min(fastest, elapsed)
                if fastest < bound { break }
            }
            #expect(fastest < bound, "the fastest of twenty timeouts took \(fastest)")
            // The deadline stops the call, not the caller's task (which may run the attempt
            // itself): the task is not cancelled afterwards, and its next call goes through. The
            // same through a client, whose retry loop runs its attempts the same way.
            #expect(!Task.isCancelled, "a timed-out call left its caller's task cancelled")
            let client = NetworkClient(transport: transport)
            do {
                _ = try await client.requestData(for: try await request("/delay/5000", timeout: .milliseconds(500)))
                Issue.record("a stalled request succeeded through a client")
            } catch let error as NetworkError {
                guard case .transport(.timedOut) = error else { Issue.record("\(error)"); return }
            }
            #expect(!Task.isCancelled, "a timed-out call left its caller's task cancelled")
            #expect(try await client.requestData(for: try await request("/status/204")).statusCode == 204)
            #expect(try await transport.send(try await request("/status/204")).head.statusCode == 204)
        },
        Check(name: "an enormous timeout (10^11 s) means no deadline, not an overflow") { transport in
            let response = try await transport.send(try await request("/status/204", timeout: .seconds(100_000_000_000)))
            #expect(response.head.statusCode == 204)
        },
        Check(name: "a refused connection is cannotConnect, at once") { transport in
            // "At once" is proven by the failure's kind: a client that keeps retrying until its
            // connect timeout (AsyncHTTPClient's default behaviour) ends with that timeout, which
            // both transports say ("timed out"). The clock only catches a hang: a refusal took
            // over 8 s once on URLSessionTransport in a loaded suite's first seconds
            // (FoundationNetworking's queues, not Net's), and 5.39 s before that.
            let started = ContinuousClock.now
            defer { #expect(ContinuousClock.now - started < TestTiming.hangGuard, "a refused connection took \(ContinuousClock.now - started)") }
            do {
                // A deadline past the clock bound, which then catches a hang before the deadline ends it.
                _ = try await transport.send(try NetworkRequest(url: "http://127.0.0.1:9/", timeout: TestTiming.hangGuard + TestTiming.scaled(.seconds(60))))
                Issue.record("a refused connection succeeded")
            } catch let error as NetworkError {
                guard case .transport(.cannotConnect(let message)) = error else { Issue.record("\(error)"); return }
                #expect(!message.contains("timed out"), "\(message)")
            }
        },
        Check(name: "a truncated body is connectionLost and leaves no file behind") { transport in
            let file = try temporaryFile()
            for destination in [TransportBodyDestination.memory, .file(file)] {
                do {
                    _ = try await transport.send(try await request("/truncated"), to: destination, progress: nil)
                    Issue.record("a truncated body was accepted")
                } catch let error as NetworkError {
                    guard case .transport(.connectionLost) = error else { Issue.record("\(error)"); continue }
                }
            }
            #expect(!FileManager.default.fileExists(atPath: file.path))
        },
        Check(name: "cancelling a waiting request ends it at once with CancellationError") { transport in
            // The server answers after 60 s (scaled, as the bound is), within an hour's deadline: a
            // transport that waits for it ends with the answer, not cancelled, and takes four times
            // the bound, which leaves a busy machine room to wind the exchange down.
            // It is cancelled once the server has the request (its signal, not a guess at how long
            // sending takes), so the cancellation meets a request in flight, not one not yet sent.
            let answer = TestTiming.scaled(.seconds(60))
            let key = UUID().uuidString
            let waiting = try await request("/delay/\(answer.components.seconds * 1000)?key=\(key)", timeout: .seconds(3600))
            let task = Task { try await transport.send(waiting) }
            let arrived = await ConformanceServer.arrived(key)
            try #require(arrived, "the server never received the request")
            let started = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            #expect(ContinuousClock.now - started < answer / 4)
        },
        Check(name: "a gzip body is decoded") { transport in
            let response = try await transport.send(try await request("/gzip"))
            #expect(String(decoding: response.body, as: UTF8.self) == ConformanceServer.gzipText)
        },
        Check(name: "error statuses are responses, with their bodies") { transport in
            let response = try await transport.send(try await request("/status/503"))
            #expect(response.head.statusCode == 503 && String(decoding: response.body, as: UTF8.self) == "status body")
        },
    ]
}

/// Every progress event, in the order reported.
final class ProgressLog: Sendable {
    private let storage = Mutex<[NetworkProgress]>([])
    func append(_ progress: NetworkProgress) { storage.withLock { $0.append(progress) } }
    var all: [NetworkProgress] { storage.withLock { $0 } }
}
