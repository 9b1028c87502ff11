import Foundation
import NetCore
import NetTransport
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// The fault suite's checks as a `requestStream` caller meets them: the same typed error, thrown
/// by the call (before the head) or by the body as it is read, never a body that looks whole.
extension TransportFaults {
    /// What a streamed call of `target` came to.
    enum StreamedOutcome {
        case failed(NetworkError.TransportFailure)
        case read(status: HTTPCode, bytes: Data)
        /// The body did not end within the hang guard.
        case hung
    }

    /// Streams `target` through a `NetworkClient` and reads the body to its end. A stream's
    /// deadline ends at its head, so the body's reading has only a hang guard, which cancels it.
    static func streamed(_ transport: any Transport, _ target: String, timeout: Duration = TransportFaults.deadline) async throws -> StreamedOutcome {
        let client = NetworkClient(transport: transport)
        let request = try request(target, timeout: timeout)
        let guardTime = timeout + TestTiming.scaled(.seconds(10))
        return try await withThrowingTaskGroup(of: StreamedOutcome.self) { group in
            group.addTask {
                do {
                    let stream = try await client.requestStream(for: request)
                    var bytes = Data()
                    for try await chunk in stream.body { bytes.append(chunk) }
                    return .read(status: stream.statusCode, bytes: bytes)
                } catch let NetworkError.transport(failure) {
                    return .failed(failure)
                }
            }
            group.addTask {
                try await Task.sleep(for: guardTime)
                return .hung
            }
            defer { group.cancelAll() }
            return try await group.next() ?? .hung
        }
    }

    /// Streams `target`, expecting a transport failure that `expected` accepts.
    static func expectStreamedFailure(
        _ transport: any Transport, _ target: String, timeout: Duration = TransportFaults.deadline,
        _ expected: (NetworkError.TransportFailure) -> Bool
    ) async throws {
        switch try await streamed(transport, target, timeout: timeout) {
        case .failed(let failure):
            #expect(expected(failure), "streamed \(target): \(failure)")
        case .read(let status, let bytes):
            Issue.record("streamed \(target) was read whole: \(status), \(bytes.count) bytes")
        case .hung:
            Issue.record("streamed \(target) did not end")
        }
    }

    /// Streams `target`, expecting a body limit `expected`, thrown as the body is read.
    static func expectStreamedLimit(_ transport: any Transport, _ target: String, _ expected: NetworkError.ResponseBodyLimit) async throws {
        switch try await streamed(transport, target) {
        case .failed(.responseBodyLimitExceeded(let limit)):
            #expect(limit == expected, "streamed \(target)")
        case let outcome:
            Issue.record("streamed \(target) passed the limit \(expected): \(outcome)")
        }
    }
}
