import Foundation
import NetReachability
import NetTestSupport
import Testing

@Suite("NetworkReachability API")
struct NetworkReachabilityAPITests {
    /// The ids of this process's threads named as the monitor names its own.
    static func monitorThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("NetReachability") == true
        })
    }

    @Test("The stream keeps its monitor running once nothing else holds the monitor; dropping the stream stops it")
    func streamHoldsMonitor() async throws {
        // Other suites of this process may run monitors of their own meanwhile: this one's
        // thread is the one that was not there before it started.
        let before = Self.monitorThreads()
        // No reference to the monitor is kept past this line: only its stream's iterator.
        var iterator = try NetworkReachability().startNotifier().makeAsyncIterator()
        _ = try await iterator.next()
        // The thread names itself once it runs, which may come after the first element.
        var ours = Set<String>()
        let running = await eventually(within: TestTiming.scaled(.seconds(10))) {
            ours = Self.monitorThreads().subtracting(before)
            return !ours.isEmpty
        }
        #expect(running, "the monitor stopped with its last reference")
        // The iterator is the stream's last holder: replacing it drops the stream.
        iterator = AsyncThrowingStream<NetworkPath, any Error> { $0.finish() }.makeAsyncIterator()
        let stopped = await eventually(within: TestTiming.scaled(.seconds(10))) { Self.monitorThreads().isDisjoint(with: ours) }
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
