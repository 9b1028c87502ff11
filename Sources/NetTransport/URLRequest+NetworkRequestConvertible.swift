import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

extension URLRequest: NetworkRequestConvertible {
    /// Converts the URL, method, headers, in-memory body and timeout into a ``NetworkRequest``.
    ///
    /// - Throws: ``NetworkError/RequestFailure/invalidURL(_:reason:)`` when there is no URL, the
    ///   usual validation errors, and ``NetworkError/RequestFailure/encodeError(type:description:)``
    ///   for an `httpBodyStream`, which cannot be read safely from another task (use
    ///   ``NetworkRequestBody/stream(_:)`` instead).
    public func asNetworkRequest() throws -> NetworkRequest {
        guard let url else { throw NetworkError.request(.invalidURL("", reason: .empty)) }
        guard httpBodyStream == nil else {
            throw NetworkError.request(.encodeError(type: "URLRequest", description: "an httpBodyStream cannot be converted; use NetworkRequestBody.stream"))
        }
        let headers = (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { NetworkHeader.header(key: $0.key, value: $0.value) }
        let method = try NetworkHttpMethod(validating: httpMethod ?? "GET")
        // Capped at the longest wait Net keeps ("no deadline" in practice), so the milliseconds fit.
        let seconds = timeoutInterval > 0 && timeoutInterval.isFinite ? min(timeoutInterval, Duration.longestWait.secondsValue) : 60
        return try NetworkRequest(url: url, httpMethod: method, headers: headers,
                                  body: httpBody.map(NetworkRequestBody.data) ?? .none,
                                  timeout: .milliseconds(Int64(seconds * 1000)))
    }
}
