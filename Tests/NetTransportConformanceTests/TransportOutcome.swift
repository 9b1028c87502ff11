import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// How one request ended, comparable in `#expect`: its body (and one header), or its transport
/// failure.
enum TransportOutcome: Equatable, CustomStringConvertible {
    /// The body as text, then a space and `header`'s value when the response had it.
    case body(String)
    /// The request failed with ``NetworkError/transport(_:)``.
    case failed(NetworkError.TransportFailure)
    /// Any other error, described (also recorded as an issue: transports throw typed errors).
    case other(String)

    /// Sends a GET for `url` through `transport` without a session.
    static func of(_ transport: some Transport, _ url: String, header: String? = nil) async -> TransportOutcome {
        do {
            let response = try await transport.send(try NetworkRequest(url: url, timeout: TestTiming.hangGuard))
            let extra = header.flatMap { response.head.headers[$0] }.map { " \($0)" } ?? ""
            return .body(String(decoding: response.body, as: UTF8.self) + extra)
        } catch NetworkError.transport(let failure) {
            return .failed(failure)
        } catch {
            Issue.record("not a transport failure: \(error)")
            return .other("\(error)")
        }
    }

    var description: String {
        switch self {
        case .body(let text): "body \(text)"
        case .failed(let failure): "failed: \(failure)"
        case .other(let text): "other: \(text)"
        }
    }
}
