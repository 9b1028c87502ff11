import Foundation
import NetCore
import NetTransport
import Synchronization
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// What every transport must do with a streamed body, through `requestStream` on a plain
/// `NetworkClient`, against `FaultServer`'s streaming routes. Each check proves its point by the
/// server's events and their order; the time limits only catch a hang.
enum TransportStreaming {
    /// One check, named.
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (@escaping @Sendable () -> any Transport) async throws -> Void
        var testDescription: String { name }
    }

    /// A bound for a hang only (``TestTiming/hangGuard``).
    static let hang = TestTiming.hangGuard

    static func url(_ target: String) -> String { FaultServer.shared.baseURL + target }

    /// Whether `chunk`, found at `offset` in the body, is the server's pattern (byte i = i % 251).
    static func isPattern(_ chunk: Data, at offset: Int) -> Bool {
        chunk.enumerated().allSatisfy { $0.element == UInt8((offset + $0.offset) % 251) }
    }

    static let checks: [Check] = [
        Check(name: "the first chunk reaches the caller while the server holds back the rest") { make in
            let key = UUID().uuidString
            let client = NetworkClient(transport: make())
            let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=1000&size=200000"))
            #expect(stream.statusCode == 200)
            let watchdog = HoldWatchdog(releasing: key)
            var iterator = stream.body.makeAsyncIterator()
            let first = try #require(try await iterator.next())
            // The server has sent 1,000 bytes and holds the rest until released: nothing more
            // exists yet, unless the watchdog had to release it.
            watchdog.cancel()
            #expect(!watchdog.fired, "the first chunk came only after the server was released")
            #expect(first.count <= 1000 && isPattern(first, at: 0))
            FaultServer.shared.release(key)
            var received = first.count
            var intact = true
            while let chunk = try await iterator.next() {
                intact = intact && isPattern(chunk, at: received)
                received += chunk.count
            }
            #expect(received == 200_000 && intact)
            #expect(FaultServer.shared.events(key) == ["sent-first", "finished"])
        },
        Check(name: "a request read whole into memory gets its head once 64 KiB of body came, while the server holds back the rest") { make in
            // URLSessionTransport holds a data call's head back for up to 64 KiB of body (one
            // hand-off for a small body); past that the head must go, or a large body would wait
            // whole in the transport before the in-memory limit could see it.
            let key = UUID().uuidString
            var request = try NetworkRequest(url: url("/hold?key=\(key)&first=100000&size=200000"))
            request.responseBodyUse = .inMemory
            let watchdog = HoldWatchdog(releasing: key)  // fires only if the head waited for the whole body
            let transport = make()  // kept to the end: an AsyncHTTPClientTransport shuts its client down when dropped
            let response = try await transport.exchange(request, progress: nil)
            watchdog.cancel()
            #expect(!watchdog.fired, "the head came only after the server was released")
            FaultServer.shared.release(key)
            let body = try await response.body.collect()
            #expect(body.count == 200_000 && isPattern(body, at: 0))
            withExtendedLifetime(transport) {}
        },
        Check(name: "a download is written as it arrives: its progress (reported once bytes are written) reaches what the server sent while it holds back the rest, and the file ends intact") { make in
            let key = UUID().uuidString
            let (first, size) = (300_000, 3_000_000)
            // A deadline past the watchdog's: a progress that never reached `first` fails below, by name.
            let client = NetworkClient(transport: make(), timeout: .seconds(3600))
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("net-stream-download-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            let (events, progress) = AsyncStream.makeStream(of: NetworkProgress.self)
            let download = Task {
                try await client.requestDownload(for: url("/hold?key=\(key)&first=\(first)&size=\(size)"), to: destination, progress: progress)
            }
            let watchdog = HoldWatchdog(releasing: key)  // fires only if the progress never reached `first`
            var reachedFirst = false
            var last: Int64 = 0
            for await event in events {
                if !reachedFirst, event.completedBytes >= Int64(first) {
                    reachedFirst = true
                    watchdog.cancel()
                    #expect(!watchdog.fired, "the progress reached \(first) bytes only after the server was released")
                    #expect(event.completedBytes == Int64(first))
                    FaultServer.shared.release(key)
                }
                last = event.completedBytes
            }
            _ = try await download.value
            let body = try Data(contentsOf: destination)
            #expect(body.count == size && isPattern(body, at: 0))
            #expect(last == Int64(size))
        },
        Check(name: "cancelling the task reading the body closes the connection") { make in
            let key = UUID().uuidString
            let client = NetworkClient(transport: make())
            let reader = Task {
                let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=1000&size=200000"))
                var received = 0
                for try await chunk in stream.body {
                    received += chunk.count
                }
                return received
            }
            #expect(await FaultServer.shared.wait(for: "sent-first", key: key, limit: hang))
            reader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: hang), "\(FaultServer.shared.events(key))")
            FaultServer.shared.release(key)
        },
        Check(name: "dropping a body that was not read to its end closes the connection") { make in
            let key = UUID().uuidString
            let client = NetworkClient(transport: make())
            do {
                let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=1000&size=200000"))
                var iterator = stream.body.makeAsyncIterator()
                _ = try await iterator.next()
            }
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: hang), "\(FaultServer.shared.events(key))")
            FaultServer.shared.release(key)
        },
        Check(name: "a body has one reader: a second iterator, or a collect after a partial read, throws a typed error and the first reads on intact") { make in
            // Both of AsyncHTTPClientTransport's APIs: a stream on an idle transport takes the
            // delegate API, a download's exchange the async API (whose SwiftNIO sequence stops the
            // process on a second iterator).
            let transport = make()  // kept: AsyncHTTPClientTransport's end cancels its exchanges
            for use in [ResponseBodyUse.streamed, .toFile] {
                let key = UUID().uuidString
                var request = try NetworkRequest(url: url("/hold?key=\(key)&first=1000&size=200000"))
                request.responseBodyUse = use
                let response = try await transport.exchange(request, progress: nil)
                var first = response.body.makeAsyncIterator()
                var received = try #require(try await first.next()).count
                FaultServer.shared.release(key)
                var second = response.body.makeAsyncIterator()
                do {
                    _ = try await second.next()
                    Issue.record("\(use): a second iterator read the body")
                } catch NetworkError.transport(.other(let message)) {
                    #expect(message.contains("already being read"), "\(message)")
                }
                do {
                    _ = try await response.body.collect()
                    Issue.record("\(use): a collect after a partial read read the body")
                } catch NetworkError.transport(.other(let message)) {
                    #expect(message.contains("already being read"), "\(message)")
                }
                var intact = true
                while let chunk = try await first.next() {
                    intact = intact && isPattern(chunk, at: received)
                    received += chunk.count
                }
                #expect(received == 200_000 && intact, "\(use): \(received) bytes")
            }
        },
        Check(name: "a JSON Lines reader that throws lets go of the body: with the reader kept, dropping the response closes the connection") { make in
            let key = UUID().uuidString
            let client = NetworkClient(transport: make())
            var lines: JSONLinesSequence<Int, NetworkResponseBody>.AsyncIterator
            do {
                let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=1000&size=200000"))
                lines = stream.body.jsonLines(of: Int.self).makeAsyncIterator()
            }
            // The server's bytes (0, 1, 2…) are no JSON: the first line fails to decode.
            do {
                let value = try await lines.next()
                Issue.record("a line of the byte pattern decoded as \(String(describing: value))")
            } catch NetworkError.stream(.undecodableLine(_, _, _)) {}
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: hang), "\(FaultServer.shared.events(key))")
            #expect(try await lines.next() == nil)  // the reader, kept to here, has ended
            FaultServer.shared.release(key)
        },
        Check(name: "a streamed body cut short of its Content-Length ends with connectionLost, not a quiet end") { make in
            let client = NetworkClient(transport: make())
            let stream = try await client.requestStream(for: url("/cut?size=100000&at=60000"))
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in stream.body {}
            }
            guard case .transport(.connectionLost)? = error else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
                return
            }
        },
        Check(name: "a streamed call's deadline ends with its head: a body held long past the timeout is read whole, and a head that never comes times out") { make in
            let key = UUID().uuidString
            let clock = ManualClock()
            let client = NetworkClient(transport: make(), timeout: .seconds(1), clock: clock)
            let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=10&size=20"))
            // The deadline's sleep has started (it starts with the call, even when ended at once):
            // moving the clock far past it would fire it now if it still ran.
            await clock.sleeps(atLeast: 1)
            clock.advance(by: .seconds(3600))
            FaultServer.shared.release(key)
            var received = 0
            for try await chunk in stream.body { received += chunk.count }
            #expect(received == 20)
            #expect(FaultServer.shared.events(key) == ["sent-first", "finished"])

            let started = clock.sleepsStarted
            let silent = Task { try await client.requestStream(for: url("/silent")) }
            await clock.sleeps(atLeast: started + 1)
            clock.advance(by: .seconds(1))
            let error = await #expect(throws: NetworkError.self) { _ = try await silent.value }
            guard case .transport(.timedOut)? = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
        },
        Check(name: "a stream's concurrency permit is freed when its body ends: a call waiting for the one permit then completes") { make in
            let key = UUID().uuidString
            let client = NetworkClient(transport: make(), maximumConcurrentRequests: 1)
            let stream = try await client.requestStream(for: url("/hold?key=\(key)&first=10&size=20"))
            // The one permit is the stream's: a second call waits in the limit's line for it (seen
            // there before the body is released), and hangs (caught by its deadline) if the end of
            // the body never frees it.
            let limited = try #require(client.transport as? ConcurrencyLimitedTransport)
            let second = Task { try await client.requestData(for: url("/ok?size=5")).data.count }
            let waiting = await eventually(within: hang) { limited.waitingCount == 1 }
            #expect(waiting, "the second call never waited for the stream's permit")
            FaultServer.shared.release(key)
            var received = 0
            for try await chunk in stream.body { received += chunk.count }
            #expect(received == 20)
            #expect(try await second.value == 5)
        },
        Check(name: "a shared GET goes on while one caller remains, and its connection is closed once every caller has left") { make in
            let shared = SharedRequestsTransport(make())
            let client = NetworkClient(transport: shared)
            func callers(_ key: String) throws -> [Task<Data, any Error>] {
                let request = try NetworkRequest(url: url("/hold?key=\(key)&first=10&size=20"), timeout: .seconds(3600))
                return (0..<2).map { _ in Task { try await client.requestData(for: request).data } }
            }
            // One of two callers leaves: the other gets the whole body, from the one exchange.
            let kept = UUID().uuidString
            let pair = try callers(kept)
            #expect(await eventually(within: hang) { shared.waitingCalls == 2 })
            #expect(await FaultServer.shared.wait(for: "sent-first", key: kept, limit: hang))
            pair[0].cancel()
            await #expect(throws: CancellationError.self) { _ = try await pair[0].value }
            FaultServer.shared.release(kept)
            #expect(try await pair[1].value.count == 20)
            #expect(FaultServer.shared.events(kept).filter { $0 == "sent-first" }.count == 1)
            // Both leave: the exchange is cancelled, which the server sees as the connection's close.
            let dropped = UUID().uuidString
            let both = try callers(dropped)
            #expect(await eventually(within: hang) { shared.waitingCalls == 2 })
            #expect(await FaultServer.shared.wait(for: "sent-first", key: dropped, limit: hang))
            for caller in both { caller.cancel() }
            for caller in both { await #expect(throws: CancellationError.self) { _ = try await caller.value } }
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: dropped, limit: hang))
            FaultServer.shared.release(dropped)
        },
        Check(name: "a stream's concurrency permit is freed when its body is dropped unread, its reader cancelled, or the body fails") { make in
            let client = NetworkClient(transport: make(), maximumConcurrentRequests: 1)
            // After each, a call needs the one permit: a leaked permit makes it wait until its
            // deadline and fail with timedOut.
            func nextCallGetsThePermit(_ after: String) async throws {
                let response = try await client.requestData(for: try NetworkRequest(url: url("/ok?size=5"), timeout: hang))
                #expect(response.data.count == 5, "after \(after)")
            }
            let dropped = UUID().uuidString
            do {
                let stream = try await client.requestStream(for: url("/hold?key=\(dropped)&first=10&size=20"))
                #expect(stream.response.statusCode == 200)
            }
            try await nextCallGetsThePermit("a stream dropped unread")
            FaultServer.shared.release(dropped)

            let cancelled = UUID().uuidString
            let reading = LockedValue(false)
            let reader = Task {
                let stream = try await client.requestStream(for: url("/hold?key=\(cancelled)&first=10&size=20"))
                for try await _ in stream.body { reading.withLock { $0 = true } }
            }
            // Cancelled while it reads the body (its first chunk in hand), not while it waits for the head.
            #expect(await eventually(within: hang) { reading.value })
            reader.cancel()
            _ = await reader.result
            try await nextCallGetsThePermit("a reader cancelled")
            FaultServer.shared.release(cancelled)

            let failing = try await client.requestStream(for: url("/cut?size=100000&at=5000"))
            await #expect(throws: NetworkError.self) { for try await _ in failing.body {} }
            try await nextCallGetsThePermit("a body that failed")
        },
    ]
}
