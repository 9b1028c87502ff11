import Glibc
@testable import NetReachability
import Testing

/// What `NetlinkSocket.snapshot` does with each dump it reads (Docs/Reachability.md): an unfinished
/// dump is read again and ends the stream with `ReachabilityError.kernel` at the fifth; an
/// interrupted one is read again, and taken at the fifth.
@Suite("Netlink dumps: read again, taken, or an error")
struct DumpVerdictTests {
    @Test("a dump the kernel could not finish is read again four times, then is the kernel's error")
    func unfinished() {
        #expect(NetlinkSocket.dumpAttempts == 5)
        for attempt in 1...4 {
            for interrupted in [false, true] {
                #expect(NetlinkSocket.verdict(attempt: attempt, interrupted: interrupted, failure: -EMSGSIZE) == .readAgain)
            }
        }
        for interrupted in [false, true] {
            #expect(NetlinkSocket.verdict(attempt: 5, interrupted: interrupted, failure: -EMSGSIZE) == .fail(.kernel(errno: EMSGSIZE)))
        }
    }

    @Test("an interrupted dump is read again four times, then taken; a whole one is taken at once")
    func interrupted() {
        for attempt in 1...4 {
            #expect(NetlinkSocket.verdict(attempt: attempt, interrupted: true, failure: nil) == .readAgain)
        }
        #expect(NetlinkSocket.verdict(attempt: 5, interrupted: true, failure: nil) == .accept)
        for attempt in 1...5 {
            #expect(NetlinkSocket.verdict(attempt: attempt, interrupted: false, failure: nil) == .accept)
        }
    }
}
