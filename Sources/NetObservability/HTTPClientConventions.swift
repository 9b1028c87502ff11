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

    static let originalMethod = "http.request.method_original"

    /// What identifies where a request goes, without its path: low-cardinality metric dimensions.
    static func dimensions(of request: NetworkRequest) -> [(String, String)] {
        let scheme = request.url.scheme?.lowercased() ?? "http"
        let port = request.url.port ?? (scheme == "https" ? 443 : 80)
        return [(method, methodValue(request.httpMethod)), (serverAddress, request.url.host ?? ""),
                (serverPort, String(port)), (self.scheme, scheme)]
    }

    /// `http.request.method`: a method OpenTelemetry's conventions know, or `_OTHER` (a method
    /// token of the caller's, or forwarded from the caller's own clients, would make a new
    /// series per token).
    static func methodValue(_ method: NetworkHttpMethod) -> String {
        if case .other = method { return "_OTHER" }
        return method.rawValue
    }

    /// A span's name: its method, or `HTTP` for one that is `_OTHER` (OpenTelemetry's rule).
    static func spanName(of request: NetworkRequest) -> String {
        if case .other = request.httpMethod { return "HTTP" }
        return request.httpMethod.rawValue
    }

    /// A status code as a dimension: `_OTHER` outside 100–599, where a server would choose a new
    /// series per response (HTTP/2's `:status` takes any number).
    static func statusValue(_ status: HTTPCode) -> String {
        (100...599).contains(status.rawValue) ? String(status.rawValue) : "_OTHER"
    }

    /// `error.type` of an outcome: the status code from 400 up, the error's type, or `nil`.
    static func errorTypeValue(status: HTTPCode?, error: (any Error)?) -> String? {
        if let error { return NetworkMetrics.errorType(of: error) }
        if let status, status.rawValue >= 400 || status.rawValue < 100 { return statusValue(status) }
        return nil
    }

    /// A span's attributes for `request`: the dimensions and the redacted URL.
    static func spanAttributes(of request: NetworkRequest) -> SpanAttributes {
        var attributes = SpanAttributes()
        for (name, value) in dimensions(of: request) {
            attributes[name] = name == serverPort ? (Int64(value) ?? 0) as any SpanAttributeConvertible : value
        }
        if case .other(let token) = request.httpMethod { attributes[originalMethod] = token }
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
