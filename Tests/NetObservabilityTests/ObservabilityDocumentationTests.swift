#if Observability  // the package trait
import Foundation
import Instrumentation
import Logging
import Metrics
import Net
import NetObservability
import Testing
import Tracing

/// Docs/Observability.md's samples about `NetObservability`, verbatim (``DocumentationCoverageTests``
/// checks).
@Suite("Docs/Observability.md samples: NetObservability")
struct ObservabilityDocumentationTests {
    func makeClient() -> NetworkClient {
        let client = NetworkClient(
            transport: URLSessionTransport(),
            interceptors: [RetryPolicy(), ObservabilityInterceptor(logger: Logger(label: "api"))])
        return client
    }

    func makeInterceptor() -> ObservabilityInterceptor {
        let observability = ObservabilityInterceptor(
            logger: Logger(label: "billing"), callLogLevel: .info, attemptLogLevel: .debug,
            metricsFactory: MetricsSystem.factory, tracer: InstrumentationSystem.tracer)
        return observability
    }

    @Test("the samples build a client and an interceptor with the levels they name")
    func samples() async throws {
        let client = makeClient()
        #expect(await client.interceptors.last is ObservabilityInterceptor)
        let observability = makeInterceptor()
        #expect(observability.callLogLevel == .info && observability.attemptLogLevel == .debug)
        #expect(observability.logger?.label == "billing")
    }
}
#endif
