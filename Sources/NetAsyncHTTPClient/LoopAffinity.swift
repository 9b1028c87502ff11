#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
@_spi(NetInternals) import NetTransport
import NIOCore

/// Which event loop an exchange on AsyncHTTPClient's delegate API asks for: for a call read whole
/// into memory, a home loop while no other such call of the transport is in flight, any loop
/// otherwise. A body read as it arrives takes the delegate API only on the home loop, when no
/// exchange of any kind is in flight (``startingStream()``); otherwise it goes through the async
/// API, not bound to a loop.
///
/// The delegate API runs its delegate on a loop chosen before the connection. Left to
/// AsyncHTTPClient (`.indifferent`, a round robin over the loops), calls made one after another
/// reused their one pooled connection from every other loop in turn, and then every callback of
/// the exchange (head, body, end) crossed from the connection's loop to the delegate's and woke
/// its thread: measured, one eventfd wake-up more per call than raw AsyncHTTPClient's, and
/// sequential calls 15 to 20 % more CPU. Asking for one loop whenever no other such call is in
/// flight keeps those calls, and the connection that serves them, on it. Concurrent calls still
/// spread over every loop, as before: one home loop for all of them was 5 % slower at 64 in
/// flight on one core, and would leave the other loops idle on more.
///
/// A preference, not a requirement: the pool may still hand out an idle connection on another
/// loop, and creates new connections on the preferred one.
package final class LoopAffinity: Sendable {
    /// The loop asked for by a call read into memory that starts while no other such call is in
    /// flight, and by a stream that starts while nothing is.
    package let home: any EventLoop
    /// Exchanges started and not yet ended, by ``Counted``, and how many exchanges were sent to
    /// ``home`` (what the tests read). A lock, not an atomic: `Atomic` needs macOS 15.
    private let counts = Locked((readWhole: 0, other: 0, sentHome: 0))

    /// Which count an exchange is in, told again to ``ended(_:)``.
    package enum Counted: Sendable {
        /// A call read whole into memory on the delegate API (``starting()``).
        case readWhole
        /// Any other exchange: a stream (``startingStream()``), or an exchange on the async API
        /// for another reason (``startingOnAsyncAPI()``).
        case other
    }

    /// `group` is the clients' event loop group (every client of the transport shares it).
    package init(group: any EventLoopGroup) {
        home = group.next()
    }

    /// The loop to ask for (``home``), or `nil` for any, for a call read whole into memory about
    /// to start on the delegate API; ``ended(_:)`` (``Counted/readWhole``) must follow once the
    /// exchange has ended (a missed one would leave every later such call at `nil`, as
    /// AsyncHTTPClient alone would choose).
    ///
    /// Only other calls read into memory count against the home loop here: an event stream can
    /// stay open for hours, and the calls made one after another beside it should keep their loop
    /// (on the home loop with it, nothing crosses).
    package func starting() -> (any EventLoop)? {
        let idle = counts.withLock { counts in
            let idle = counts.readWhole == 0
            counts.readWhole += 1
            if idle { counts.sentHome += 1 }
            return idle
        }
        return idle ? home : nil
    }

    /// ``home`` for a body read as it arrives, about to start while no other exchange of any kind
    /// is in flight; `nil` otherwise, and the exchange then goes through the async API
    /// (`AsyncHTTPClientTransport.execute` says why). Counted either way: ``ended(_:)``
    /// (``Counted/other``) must follow.
    package func startingStream() -> (any EventLoop)? {
        let idle = counts.withLock { counts in
            let idle = counts.readWhole == 0 && counts.other == 0
            counts.other += 1
            if idle { counts.sentHome += 1 }
            return idle
        }
        return idle ? home : nil
    }

    /// Counts an exchange about to start on the async API for another reason (a request body
    /// pulled in chunks, a download to a file): it keeps a stream from the home loop while it
    /// lasts. ``ended(_:)`` (``Counted/other``) must follow.
    package func startingOnAsyncAPI() {
        counts.withLock { $0.other += 1 }
    }

    /// An exchange counted as `counted` has ended.
    package func ended(_ counted: Counted) {
        counts.withLock { counts in
            switch counted {
            case .readWhole: counts.readWhole -= 1
            case .other: counts.other -= 1
            }
        }
    }

    /// Exchanges started and not yet ended.
    package var exchangesInFlight: Int { counts.withLock { $0.readWhole + $0.other } }

    /// Exchanges started and not yet ended, by count: each is 0 once everything has ended, and a
    /// negative one is an exchange ended twice or under the wrong count (what the tests read).
    package var exchangesInFlightByCount: (readWhole: Int, other: Int) {
        counts.withLock { ($0.readWhole, $0.other) }
    }

    /// How many exchanges ``starting()`` and ``startingStream()`` sent to ``home`` so far.
    package var exchangesSentHome: Int { counts.withLock { $0.sentHome } }
}
#endif
