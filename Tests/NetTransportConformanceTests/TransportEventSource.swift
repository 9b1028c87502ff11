import Foundation
import NetCore
import NetTransport
import Synchronization
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // ManualClock, TestTiming
#endif

/// What an event source does on every transport, against the Hummingbird endpoint that paces its
/// events and `FaultServer`'s scripted `/sse` connections. Each check proves its point by the
/// server's records and their order; waits between connections run on a manual clock, so nothing
/// here sleeps real time to see a backoff.
enum TransportEventSource {
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (@escaping @Sendable () -> any Transport) async throws -> Void
        var testDescription: String { name }
    }

    /// A bound for a hang only (``TestTiming/hangGuard``): in a full run on a slow VM, while the
    /// load probes' child processes held both cores for half a minute, 20 s passed before a
    /// reconnection was made (seen on the code before and after 0e5e13f alike).
    static let hang = TestTiming.hangGuard

    static func sse(_ key: String) -> String { FaultServer.shared.baseURL + "/sse?key=\(key)" }

    /// Reads events until the source throws; returns them and the error.
    static func drain(_ source: NetworkEventSource) async -> ([ServerSentEvent], (any Error)?) {
        var events: [ServerSentEvent] = []
        do {
            for try await event in source { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    static func failure(_ error: (any Error)?) -> NetworkError.StreamFailure? {
        guard case .stream(let failure)? = error as? NetworkError else { return nil }
        return failure
    }

    /// Waits until the clock has a sleep shorter than an hour (a reconnection wait, not a call's
    /// deadline) and returns how long it is.
    static func nextWait(_ clock: ManualClock) async -> Duration? {
        let isReconnectionWait = { (delay: Duration) in delay < .seconds(3600) }
        guard await eventually(within: hang, { clock.pendingDelays.contains(where: isReconnectionWait) }) else { return nil }
        return clock.pendingDelays.first(where: isReconnectionWait)
    }

    static let checks: [Check] = [
        Check(name: "each event reaches the caller before the server writes the next") { make in
            let key = UUID().uuidString
            let base = try await ConformanceServer.shared.baseURL()
            let client = NetworkClient(transport: make())
            // The server writes an event only after the previous one reached us: a client that held
            // events back until more arrived would wait forever, so a watchdog turns that into a failure.
            let reader = Task {
                var received: [String] = []
                for try await event in client.eventSource(for: "\(base)/events/paced?key=\(key)&count=3", reconnection: .init(maximumAttempts: 1)) {
                    received.append(event.data)
                    let index = received.count
                    #expect(FaultServer.shared.events(key) == (1...index).map { "wrote \($0)" })
                    #expect(event.lastEventID == "\(index)")
                    FaultServer.shared.release("\(key)-\(index)")
                    if index == 3 { break }
                }
                return received
            }
            let watchdog = Task {
                try await Task.sleep(for: hang)
                reader.cancel()
            }
            let received = try await reader.value
            watchdog.cancel()
            #expect(received == ["event 1", "event 2", "event 3"])
        },
        Check(name: "a cut mid-event or mid-character drops the partial event and reconnects with Last-Event-ID; 204 stops it") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [
                [.eventStream, .text("retry: 0\nid: 1\ndata: one\n\nid: 2\ndata: tw")],  // a close mid-event
                [.eventStream, .text("id: 3\ndata: three\n\n")],
                [.eventStream, .text("data: caf"), .write([0xC3]), .reset],  // a reset inside a character (no event either way)
                [.eventStream, .text("data: café\n\n")],
            ])
            let client = NetworkClient(transport: make())
            // No backoff floor, so the connection without an event is followed at once too.
            let (events, error) = await drain(client.eventSource(for: sse(key), reconnection: .init(minimumBackoff: .zero)))
            #expect(events.map(\.data) == ["one", "three", "café"])
            #expect(events.map(\.lastEventID) == ["1", "3", "3"])
            #expect(failure(error) == .stoppedByServer, "\(String(describing: error))")
            let connects = FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }
            #expect(connects == ["connect - -", "connect 1 -", "connect 3 -", "connect 3 -", "connect 3 -"])
            // Every connection, reconnections too, asks for an event stream that no cache may keep.
            #expect(FaultServer.shared.events(key + "-headers") == Array(repeating: "text/event-stream | no-store", count: 5))
        },
        Check(name: "retry: 0 reconnects at once after events; a storm of connections that send nothing backs off, then gives up") { make in
            let key = UUID().uuidString
            let empty: [FaultServer.EventStep] = [.eventStream]  // the head, then a close
            EventScripts.shared.set(key, [[.eventStream, .text("retry: 0\ndata: one\n\n")]] + Array(repeating: empty, count: 4))
            let clock = ManualClock()
            let client = NetworkClient(transport: make(), timeout: .seconds(7200), clock: clock)
            let source = client.eventSource(for: sse(key), reconnection: .init(minimumBackoff: .milliseconds(250), maximumAttempts: 4))
            let reader = Task { await drain(source) }
            // After the first connection's event the source reconnects at once: its first wait
            // comes after the second connection, which sent nothing.
            var waits: [Duration] = []
            for expected in 2...4 {
                guard let wait = await nextWait(clock) else { break }
                #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }.count == expected)
                waits.append(wait)
                clock.advance(by: wait)
            }
            #expect(waits == [.milliseconds(250), .milliseconds(500), .seconds(1)], "server saw: \(FaultServer.shared.events(key))")
            // A wait that never came leaves the reader waiting on the manual clock: end it, so that
            // the check fails instead of hanging.
            if waits.count < 3 { reader.cancel() }
            let (events, error) = await reader.value
            #expect(events.map(\.data) == ["one"])
            guard case .reconnectionsExhausted(4, _)? = failure(error) else {
                Issue.record("expected reconnectionsExhausted after 4 attempts: \(String(describing: error))")
                return
            }
        },
        Check(name: "a quiet feed whose connections carry only heartbeats backs off but is never given up") { make in
            let key = UUID().uuidString
            let heartbeat: [FaultServer.EventStep] = [.eventStream, .text(": ping\n")]
            EventScripts.shared.set(key, Array(repeating: heartbeat, count: 4) + [[.eventStream, .text("data: news\n\n")]])
            let clock = ManualClock()
            let client = NetworkClient(transport: make(), timeout: .seconds(7200), clock: clock)
            let source = client.eventSource(for: sse(key), reconnection: .init(defaultRetry: .zero, maximumAttempts: 2))
            let reader = Task { () -> String? in
                for try await event in source { return event.data }
                return nil
            }
            var waits: [Duration] = []
            for _ in 1...4 {
                guard let wait = await nextWait(clock) else { break }
                waits.append(wait)
                clock.advance(by: wait)
            }
            #expect(waits == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)], "server saw: \(FaultServer.shared.events(key))")
            if waits.count < 4 { reader.cancel() }  // as above: fail, not hang
            let first = try? await reader.value
            #expect(first == "news")
        },
        Check(name: "an event ID that cannot be a header field stops the source with a typed error, not a reconnection without it") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.eventStream, .text("retry: 0\nid: a\u{1}b\ndata: x\n\n")], [.eventStream]])
            let client = NetworkClient(transport: make())
            let (events, error) = await drain(client.eventSource(for: sse(key)))
            #expect(events.map(\.lastEventID) == ["a\u{1}b"])
            guard case .request(.invalidHeader(name: "Last-Event-ID", _))? = error as? NetworkError else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }.count == 1)
        },
        Check(name: "a character split across the server's writes arrives whole") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.eventStream, .text("data: caf"), .write([0xC3]), .hold, .write([0xA9, 0x0A, 0x0A])]])
            let client = NetworkClient(transport: make())
            let reader = Task { await drain(client.eventSource(for: sse(key), reconnection: .init(defaultRetry: .zero))) }
            // The first half is on the wire (and read) before the server writes the second.
            #expect(await FaultServer.shared.wait(for: "holding", key: key, limit: hang))
            FaultServer.shared.release(key)
            let (events, error) = await reader.value
            #expect(events.map(\.data) == ["café"])
            #expect(failure(error) == .stoppedByServer)
        },
        Check(name: "an authentication refresh on a 401 applies to the event source's connection") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.head(status: 401, contentType: "text/plain")], [.eventStream, .text("data: secret\n\n")]])
            let authentication = AuthenticationInterceptor<String>(
                credential: "old", header: { .header(key: "X-Token", value: $0) }, refresh: { _ in "new" })
            let client = NetworkClient(transport: make(), interceptors: [authentication], timeout: hang)
            let (events, error) = await drain(client.eventSource(for: sse(key), reconnection: .init(defaultRetry: .zero)))
            #expect(events.map(\.data) == ["secret"] && failure(error) == .stoppedByServer, "\(String(describing: error))")
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") } == ["connect - old", "connect - new", "connect - new"])
        },
        Check(name: "an endless line fails with lineTooLong and closes the connection") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.eventStream, .text("data: before\n\ndata: "), .endlessLine]])
            let client = NetworkClient(transport: make())
            let (events, error) = await drain(client.eventSource(for: sse(key), maximumLineLength: 65_536))
            #expect(events.map(\.data) == ["before"])
            #expect(failure(error) == .lineTooLong(limit: 65_536), "\(String(describing: error))")
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: hang))
        },
        Check(name: "a response that is not an event stream stops the source without a reconnection") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.head(status: 200, contentType: "application/json"), .text("{}")]])
            let client = NetworkClient(transport: make())
            let (events, error) = await drain(client.eventSource(for: sse(key)))
            #expect(events.isEmpty)
            #expect(failure(error) == .notAnEventStream(status: 200, contentType: "application/json"))
            EventScripts.shared.set(key, [[.head(status: 503, contentType: "text/event-stream")]])
            let (_, unavailable) = await drain(client.eventSource(for: sse(key)))
            #expect(failure(unavailable) == .notAnEventStream(status: 503, contentType: "text/event-stream"))
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }.count == 2)
        },
        Check(name: "every connection goes through the session's interceptors") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.eventStream, .text("retry: 0\nid: a\ndata: one\n\n")], [.eventStream, .text("data: two\n\n")]])
            let client = NetworkClient(transport: make(), interceptors: [NumberingInterceptor()])
            let (events, error) = await drain(client.eventSource(for: sse(key)))
            #expect(events.map(\.data) == ["one", "two"] && failure(error) == .stoppedByServer)
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") } == ["connect - 1", "connect a 2", "connect a 3"])
        },
        Check(name: "once the caller stops iterating, the connection closes and the source never connects again") { make in
            let key = UUID().uuidString
            // No retry: 0, so a reconnection would first sleep 3 s on the manual clock.
            EventScripts.shared.set(key, [[.eventStream, .text("data: one\n\n"), .hold], [.eventStream, .text("data: two\n\n")]])
            let clock = ManualClock()
            let client = NetworkClient(transport: make(), timeout: .seconds(7200), clock: clock)
            for try await event in client.eventSource(for: sse(key)) {
                #expect(event.data == "one")
                break
            }
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: key, limit: hang), "\(FaultServer.shared.events(key))")
            // Nothing runs once the iterator is gone: after a round trip through the server, no
            // reconnection wait is pending; with the clock moved past any such wait, and another
            // round trip, no second connection came.
            _ = try await client.requestData(for: FaultServer.shared.baseURL + "/ok?size=1")
            #expect(clock.pendingDelays.allSatisfy { $0 >= .seconds(3600) })
            clock.advance(by: .seconds(10))
            _ = try await client.requestData(for: FaultServer.shared.baseURL + "/ok?size=1")
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }.count == 1)
        },
        Check(name: "an interceptor's error is thrown as it is, with no reconnection; then the iterator returns nil; a cancelled reader gets CancellationError and its connection is closed; one cancelled in its reconnection wait never connects again") { make in
            let key = UUID().uuidString
            EventScripts.shared.set(key, [[.eventStream, .text("retry: 0\ndata: one\n\n")], [.eventStream, .text("data: two\n\n")]])
            let client = NetworkClient(transport: make(), interceptors: [RefusingSecondRequest()])
            var iterator = client.eventSource(for: sse(key)).makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.data == "one")
            do {
                let event = try await iterator.next()
                Issue.record("the second connection was sent: \(String(describing: event))")
            } catch {
                #expect(error is RefusingSecondRequest.Refused, "\(error)")
            }
            let afterError = try await iterator.next()
            #expect(afterError == nil)
            #expect(FaultServer.shared.events(key).filter { $0.hasPrefix("connect") }.count == 1)

            let held = UUID().uuidString
            defer { FaultServer.shared.release(held) }
            EventScripts.shared.set(held, [[.eventStream, .text("data: one\n\n"), .hold]])
            let reader = Task {
                var iterator = NetworkClient(transport: make()).eventSource(for: sse(held)).makeAsyncIterator()
                _ = try await iterator.next()
                return try await iterator.next()
            }
            #expect(await FaultServer.shared.wait(for: "holding", key: held, limit: hang))
            reader.cancel()
            await #expect(throws: CancellationError.self) { _ = try await reader.value }
            // The cancelled reader's connection is closed.
            #expect(await FaultServer.shared.wait(for: "closed-by-client", key: held, limit: hang), "\(FaultServer.shared.events(held))")

            // Cancelled while it waits to reconnect: the wait ends, and no connection follows it.
            let waiting = UUID().uuidString
            EventScripts.shared.set(waiting, [[.eventStream, .text("data: one\n\n")], [.eventStream, .text("data: two\n\n")]])
            let clock = ManualClock()
            let waitingClient = NetworkClient(transport: make(), timeout: .seconds(7200), clock: clock)
            let sleeper = Task { await drain(waitingClient.eventSource(for: sse(waiting))) }
            #expect(await nextWait(clock) == .seconds(3), "the default retry after the first connection")
            sleeper.cancel()
            let (events, error) = await sleeper.value
            #expect(events.map(\.data) == ["one"] && error is CancellationError, "\(String(describing: error))")
            clock.advance(by: .seconds(10))
            _ = try await waitingClient.requestData(for: FaultServer.shared.baseURL + "/ok?size=1")
            #expect(FaultServer.shared.events(waiting).filter { $0.hasPrefix("connect") }.count == 1)
        },
    ]
}

@Suite("Event sources: URLSessionTransport")
struct URLSessionTransportEventSourceTests {
    @Test("URLSessionTransport", .timeLimit(.minutes(10)), arguments: TransportEventSource.checks + TransportEventSource.refused)
    func eventSource(_ check: TransportEventSource.Check) async throws {
        try await check.run { URLSessionTransport() }
    }
}

#if AsyncHTTPClient  // the package trait
import NetAsyncHTTPClient

@Suite("Event sources: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportEventSourceTests {
    @Test("AsyncHTTPClientTransport", .timeLimit(.minutes(10)), arguments: TransportEventSource.checks + TransportEventSource.refused)
    func eventSource(_ check: TransportEventSource.Check) async throws {
        try await check.run { AsyncHTTPClientTransport() }
    }
}
#endif
