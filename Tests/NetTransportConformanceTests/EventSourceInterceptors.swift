import NetCore
import NetTransport
import Synchronization

// Interceptors the event-source checks (`TransportEventSource`) put in a session, to tell its
// connections apart at the server or to end a source by an error of the session's own.

/// Lets the first request through and refuses every later one with an error of its own type.
final class RefusingSecondRequest: NetworkInterceptor {
    struct Refused: Error {}
    private let count = Mutex(0)
    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        let number = count.withLock { count in
            count += 1
            return count
        }
        guard number == 1 else { throw Refused() }
        return request
    }
}

/// Sets `X-Token` to how many requests it has seen, so the server can tell each connection went
/// through the session's interceptors.
final class NumberingInterceptor: NetworkInterceptor {
    private let count = Mutex(0)
    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        var request = request
        let number = count.withLock { count in
            count += 1
            return count
        }
        try request.headers.set(name: "X-Token", value: "\(number)")
        return request
    }
}
