import NetCore
import NetTransport
import Synchronization

// One file, linked into each test target whose tests need it (NetTransportTests, NetOpenAPITests).

/// Holds each request after it is signed until `count` requests have been: the burst is then
/// concurrent by construction, not by how fast a loaded machine starts a thousand tasks. Every
/// request after the `count`th passes at once.
final class SigningBarrier: NetworkInterceptor {
    private let count: Int
    private let state = Mutex<(signed: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

    init(count: Int) { self.count = count }

    func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.signed += 1
                guard state.signed >= count else {
                    state.waiting.append(continuation)
                    return []
                }
                defer { state.waiting = [] }
                return state.waiting + [continuation]
            }
            for waiter in released { waiter.resume() }
        }
        return request
    }
}
