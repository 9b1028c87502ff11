import Glibc
@testable import NetReachability
import Testing

/// What `NetlinkSocket.snapshot` does with each dump it reads (Docs/Reachability.md): an unfinished
/// dump is read again and ends the stream with `ReachabilityError.kernel` at the fifth; an
/// interrupted one is read again, and taken at the fifth. And what the event socket's read
/// errors mean to `NetlinkSocket.drainEvents`.
@Suite("Netlink reads: read again, taken, a change, or an error")
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

    @Test("an event socket's overflow (ENOBUFS) counts as a change; EAGAIN ends the drain; EINTR reads again; anything else fails")
    func readErrors() {
        #expect(NetlinkSocket.afterReadError(ENOBUFS) == .overflowed)
        #expect(NetlinkSocket.afterReadError(EAGAIN) == .drained && NetlinkSocket.afterReadError(EWOULDBLOCK) == .drained)
        #expect(NetlinkSocket.afterReadError(EINTR) == .readAgain)
        for code in [EBADF, ENOTSOCK, EFAULT, EINVAL] { #expect(NetlinkSocket.afterReadError(code) == .failed) }
    }

    @Test("an errno of Int32.min in a reply is an error, not a trap")
    func extremeErrno() {
        #expect(NetlinkSocket.verdict(attempt: 5, interrupted: false, failure: .min) == .fail(.kernel(errno: .min)))
    }
}
