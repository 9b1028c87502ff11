import Foundation
import NetCore
import NetTransport
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // ManualClock, closedLoopbackPorts
#endif

/// An event source whose connections are refused (Docs/Streaming.md: "refused, failed, or closed
/// before a byte"): each refusal is waited after, the waits doubling, and counts toward
/// `maximumAttempts`.
extension TransportEventSource {
    static let refused: [Check] = [
        Check(name: "refused connections are waited after, doubling, and count toward maximumAttempts") { make in
            let port = try #require(try closedLoopbackPorts(1).first)
            let clock = ManualClock()
            let client = NetworkClient(transport: make(), timeout: .seconds(7200), clock: clock)
            let reconnection = EventSourceReconnection(defaultRetry: .milliseconds(100), minimumBackoff: .milliseconds(250),
                                                       maximumAttempts: 3)
            let finished = LockedValue(false)
            let reader = Task {
                defer { finished.withLock { $0 = true } }
                return await drain(client.eventSource(for: "http://127.0.0.1:\(port)/events", reconnection: reconnection))
            }
            var waits: [Duration] = []
            for _ in 1...2 {
                guard let wait = await nextWait(clock) else { break }
                waits.append(wait)
                clock.advance(by: wait)
            }
            #expect(waits == [.milliseconds(250), .milliseconds(500)])
            // The third refusal ends the source; a third wait instead would leave it waiting on the
            // manual clock for good: fail then, not hang.
            _ = await eventually(within: hang) { finished.value || clock.pendingDelays.contains { $0 < .seconds(3600) } }
            if !finished.value {
                Issue.record("the source did not give up after three refusals; waits pending: \(clock.pendingDelays)")
                reader.cancel()
            }
            let (events, error) = await reader.value
            #expect(events.isEmpty)
            guard case .reconnectionsExhausted(3, let lastFailure)? = failure(error) else {
                Issue.record("expected reconnectionsExhausted after 3 attempts: \(String(describing: error))")
                return
            }
            #expect(lastFailure.contains("\(port)") || lastFailure.lowercased().contains("connect"), "\(lastFailure)")
        },
    ]
}
