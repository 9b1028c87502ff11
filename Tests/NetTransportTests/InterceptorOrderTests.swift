import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// Docs/Sessions.md's order: requests through the interceptors in order, results in reverse, the
/// first decision other than `.nothing` wins; a cancelled call is never intercepted.
@Suite("NetworkClient: the interceptors' order")
struct InterceptorOrderTests {
    /// Writes what it sees to a shared log; asks for one retry when `retriesFirst` is set.
    struct Recorder: NetworkInterceptor {
        let name: String
        let log: Collected<String>
        var retriesFirst = false

        func interceptRequest(_ request: NetworkRequest) async throws -> NetworkRequest {
            log.append("\(name) request")
            return request
        }

        func interceptResponse(
            _ request: NetworkRequest, retryNumber: Int, result: Result<NetworkSessionInterception, any Error>
        ) async throws -> NetworkSessionInterceptionResult {
            log.append("\(name) result \(retryNumber)")
            return retriesFirst && retryNumber == 0 ? .retry(request) : .nothing
        }
    }

    @Test("requests in order, results in reverse; the inner interceptor's retry wins and the outer one is not asked about that attempt")
    func order() async throws {
        let log = Collected<String>()
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .text("ok"))
        let client = NetworkClient(transport: stub, interceptors: [
            Recorder(name: "outer", log: log), Recorder(name: "inner", log: log, retriesFirst: true),
        ])
        #expect(try await client.requestData(for: "https://host/x").statusCode == 200)
        #expect(log.values == [
            "outer request", "inner request", "inner result 0",
            "outer request", "inner request", "inner result 1", "outer result 1",
        ])
        #expect(stub.requests.count == 2)
    }

    @Test("a LoggingInterceptor after the authentication logs the signed request (redacted); before it, the unsigned one")
    func loggingPosition() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", respond: .text("ok"))
        let authentication = AuthenticationInterceptor<String>(credential: "secret-token", header: { .header(key: "Authorization", value: "Bearer \($0)") }) { _ in "fresh" }
        for signedFirst in [true, false] {
            let lines = Collected<String>()
            let logging = LoggingInterceptor { lines.append($0) }
            let interceptors: [any NetworkInterceptor] = signedFirst ? [authentication, logging] : [logging, authentication]
            _ = try await NetworkClient(transport: stub, interceptors: interceptors).requestData(for: "https://host/x")
            let request = try #require(lines.values.first)
            #expect(request.contains("Authorization") == signedFirst, "\(request)")
            #expect(!request.contains("secret-token"))
        }
        #expect(stub.requests.allSatisfy { $0.request.headers["Authorization"] == "Bearer secret-token" })
    }

    @Test("a call cancelled during its exchange throws CancellationError and no interceptor sees a result", .timeLimit(.minutes(3)))
    func cancellationIsNotIntercepted() async throws {
        let log = Collected<String>()
        let stub = StubTransport()
        stub.on(nil, "*", respond: StubResponse.status(.ok).delayed(by: .seconds(3_600)))
        let client = NetworkClient(transport: stub, interceptors: [Recorder(name: "only", log: log, retriesFirst: true)])
        let call = Task { try await client.requestData(for: try NetworkRequest(url: "https://host/x", timeout: .seconds(7_200))) }
        try #require(await eventually(within: TestTiming.scaled(.seconds(20))) { stub.requests.count == 1 })
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(log.values == ["only request"])
    }
}
