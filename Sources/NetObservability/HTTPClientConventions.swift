#if Observability  // the package trait: without it this file compiles to nothing
import Foundation
import Instrumentation
import Logging
import NetCore
import NetTransport
import Tracing

/// OpenTelemetry's HTTP client semantic conventions, as Net fills them: the attribute names, and
/// their values for a request and its outcome. One place, so spans, metric dimensions and log
/// metadata use the same names.
enum HTTPClientConventions {
    static let method = "http.request.method"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let scheme = "url.scheme"
    static let fullURL = "url.full"
    static let statusCode = "http.response.status_code"
    static let errorType = "error.type"
    static let resendCount = "http.request.resend_count"
    static let requestDuration = "http.client.request.duration"
    static let activeRequests = "http.client.active_requests"

    /// What identifies where a request goes, without its path: low-cardinality metric dimensions.
    static func dimensions(of request: NetworkRequest) -> [(String, String)] {
        let scheme = request.url.scheme?.lowercased() ?? "http"
        let port = request.url.port ?? (scheme == "https" ? 443 : 80)
        return [(method, request.httpMethod.rawValue), (serverAddress, request.url.host ?? ""),
                (serverPort, String(port)), (self.scheme, scheme)]
    }

    /// `error.type` of an outcome: the status code from 400 up, the error's type, or `nil`.
    static func errorTypeValue(status: HTTPCode?, error: (any Error)?) -> String? {
        if let error { return NetworkMetrics.errorType(of: error) }
        if let status, status.rawValue >= 400 { return String(status.rawValue) }
        return nil
    }

    /// A span's attributes for `request`: the dimensions and the redacted URL.
    static func spanAttributes(of request: NetworkRequest) -> SpanAttributes {
        var attributes = SpanAttributes()
        for (name, value) in dimensions(of: request) {
            attributes[name] = name == serverPort ? (Int64(value) ?? 0) as any SpanAttributeConvertible : value
        }
        attributes[fullURL] = request.redactedURL
        return attributes
    }

    /// Sets a finished span's outcome: status code, `error.type`, and an error status for a
    /// failure or a status from 400 up.
    static func finish(_ span: any Span, status: HTTPCode?, error: (any Error)?) {
        guard span.isRecording else { return }
        if let status { span.attributes[statusCode] = Int64(status.rawValue) }
        guard let type = errorTypeValue(status: status, error: error) else { return }
        span.attributes[errorType] = type
        if let error { span.recordError(error) }
        span.setStatus(SpanStatus(code: .error, message: type))
    }

    /// Log metadata for `request` (the URL redacted as everywhere in Net).
    static func metadata(of request: NetworkRequest) -> Logger.Metadata {
        [method: .string(request.httpMethod.rawValue), fullURL: .string(request.redactedURL)]
    }
}

/// A request's header fields as a tracer writes its context into them, with the names it wrote
/// and the ones it could not (a field with an invalid name or value cannot be sent; the
/// interceptor logs it rather than failing the request). A value, so injecting allocates nothing
/// of its own.
struct TraceContextCarrier {
    var headers: NetworkHeaders
    var written: [String] = []
    var rejected: [String] = []
}

/// Writes a trace context into a ``TraceContextCarrier`` (W3C `traceparent`/`tracestate` with an
/// OpenTelemetry tracer, whatever the tracer propagates otherwise).
struct TraceContextInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout TraceContextCarrier) {
        do {
            try carrier.headers.set(name: key, value: value)
            carrier.written.append(key)
        } catch {
            carrier.rejected.append(key)
        }
    }
}
#endif
