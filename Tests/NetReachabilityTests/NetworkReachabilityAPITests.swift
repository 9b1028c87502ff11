import Foundation
import NetReachability
import NetTestSupport
import Testing

@Suite("NetworkReachability API")
struct NetworkReachabilityAPITests {
    @Test("The stream keeps its monitor running once nothing else holds the monitor; dropping the stream stops it")
    func streamHoldsMonitor() async throws {
        func alive(_ thread: Int32) -> Bool { FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") }
        var iterator: AsyncThrowingStream<NetworkPath, any Error>.AsyncIterator
        let thread: Int32
        do {
            let reachability = try NetworkReachability()
            iterator = try reachability.startNotifier().makeAsyncIterator()
            var seen: Int32?
            _ = await eventually(within: TestTiming.hangGuard) {
                seen = reachability.notifierThreadID
                return seen != nil
            }
            thread = try #require(seen, "the monitor's thread never ran")
        }
        // The monitor is out of scope: only its stream's iterator is left. A monitor stopped by
        // its release would have joined its thread before the release returned.
        _ = try await iterator.next()
        #expect(alive(thread), "the monitor stopped with its last reference")
        // The iterator is the stream's last holder: replacing it drops the stream.
        iterator = AsyncThrowingStream<NetworkPath, any Error> { $0.finish() }.makeAsyncIterator()
        let stopped = await eventually(within: TestTiming.hangGuard) { !alive(thread) }
        #expect(stopped, "dropping the stream left the monitor's thread running")
        _ = try await iterator.next()
    }

    @Test("Bad input and misuse are typed errors")
    func misuse() throws {
        #expect(throws: ReachabilityError.invalidDebounce(.milliseconds(-1))) { try NetworkReachability(debounce: .milliseconds(-1)) }
        // Past a day, as far as Duration goes (its poll would have trapped on the millisecond count).
        for tooLong in [NetworkReachability.longestDebounce + .nanoseconds(1), .seconds(Int64.max), .seconds(UInt64.max)] {
            #expect(throws: ReachabilityError.invalidDebounce(tooLong)) { try NetworkReachability(debounce: tooLong) }
        }
        _ = try NetworkReachability(debounce: NetworkReachability.longestDebounce)
        let reachability = try NetworkReachability(debounce: .zero)
        let stream = try reachability.startNotifier()
        #expect(throws: ReachabilityError.alreadyRunning) { try reachability.startNotifier() }
        reachability.stopNotifier()
        reachability.stopNotifier()  // a second stop does nothing
        _ = stream
        let again = try reachability.startNotifier()
        reachability.stopNotifier()
        _ = again
    }

    @Test("The stream's first element is the current path, and stopNotifier() finishes it")
    func firstElementAndFinish() async throws {
        let reachability = try NetworkReachability()
        let current = try reachability.currentPath()
        var iterator = try reachability.startNotifier().makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first == current)
        #expect(try reachability.connection == current.connection)
        reachability.stopNotifier()
        #expect(try await iterator.next() == nil)
    }

    @Test("Addresses print in their usual form")
    func addresses() throws {
        #expect(IPAddress(bytes: [192, 0, 2, 1])?.description == "192.0.2.1")
        #expect(IPAddress(bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1])?.description == "2001:db8::1")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(NetworkReachability.Connection.allCases.map(\.rawValue) == ["unavailable", "wifi", "cellular", "ethernet", "other"])
    }
}
