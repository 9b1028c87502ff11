#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
@_spi(NetInternals) import NetTransport
import NIOCore

/// Which event loop an exchange on AsyncHTTPClient's delegate API asks for: a home loop while no
/// other delegate-API exchange of the transport is in flight, any loop otherwise. A body read as
/// it arrives takes the delegate API only on the home loop (``startingIfIdle()``); otherwise it
/// goes through the async API, is not bound to a loop and is not counted.
///
/// The delegate API runs its delegate on a loop chosen before the connection. Left to
/// AsyncHTTPClient (`.indifferent`, a round robin over the loops), calls made one after another
/// reused their one pooled connection from every other loop in turn, and then every callback of
/// the exchange (head, body, end) crossed from the connection's loop to the delegate's and woke
/// its thread: measured, one eventfd wake-up more per call than raw AsyncHTTPClient's, and
/// sequential calls 15 to 20 % more CPU. Asking for one loop whenever the transport is otherwise
/// idle keeps those calls, and the connection that serves them, on it. Concurrent calls still
/// spread over every loop, as before: one home loop for all of them was 5 % slower at 64 in
/// flight on one core, and would leave the other loops idle on more.
///
/// A preference, not a requirement: the pool may still hand out an idle connection on another
/// loop, and creates new connections on the preferred one.
package final class LoopAffinity: Sendable {
    /// The loop asked for by an exchange that starts while none other is in flight.
    package let home: any EventLoop
    /// Exchanges started and not yet ended, how many of them are bodies read as they arrive
    /// (``startingIfIdle()``), and how many exchanges were sent to ``home`` (what the tests read).
    /// A lock, not an atomic: `Atomic` needs macOS 15.
    private let counts = Locked((inFlight: 0, streams: 0, sentHome: 0))

    /// `group` is the clients' event loop group (every client of the transport shares it).
    package init(group: any EventLoopGroup) {
        home = group.next()
    }

    /// The loop to ask for (``home``), or `nil` for any, for an exchange about to start;
    /// ``ended(stream:)`` must follow once the exchange has ended (a missed one would leave every later
    /// exchange at `nil`, as AsyncHTTPClient alone would choose).
    ///
    /// A body being read as it arrives does not count against the home loop here: an event stream
    /// can stay open for hours, and the calls made one after another beside it should keep their
    /// loop (both on it, nothing crosses).
    package func starting() -> (any EventLoop)? {
        let idle = counts.withLock { counts in
            let idle = counts.inFlight == counts.streams
            counts.inFlight += 1
            if idle { counts.sentHome += 1 }
            return idle
        }
        return idle ? home : nil
    }

    /// ``home`` for a body read as it arrives, about to start while no other exchange is in
    /// flight, counted as a stream (``ended(stream:)`` must follow); `nil`, and not counted, while
    /// another is in flight: such a body goes on the delegate API only on the home loop
    /// (`AsyncHTTPClientTransport.execute` says why).
    package func startingIfIdle() -> (any EventLoop)? {
        let idle = counts.withLock { counts in
            guard counts.inFlight == 0 else { return false }
            counts.inFlight = 1
            counts.streams = 1
            counts.sentHome += 1
            return true
        }
        return idle ? home : nil
    }

    /// ``starting()`` as AsyncHTTPClient's preference.
    func preference() -> HTTPClient.EventLoopPreference {
        starting().map { .delegate(on: $0) } ?? .indifferent
    }

    /// An exchange that ``starting()`` counted has ended, or with `stream` one that
    /// ``startingIfIdle()`` counted.
    package func ended(stream: Bool = false) {
        counts.withLock { counts in
            counts.inFlight -= 1
            if stream { counts.streams -= 1 }
        }
    }

    /// Exchanges started and not yet ended.
    package var exchangesInFlight: Int { counts.withLock { $0.inFlight } }

    /// How many exchanges ``starting()`` sent to ``home`` so far.
    package var exchangesSentHome: Int { counts.withLock { $0.sentHome } }
}
#endif
