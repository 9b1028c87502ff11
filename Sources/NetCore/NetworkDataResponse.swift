#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response whose body was collected in memory.
public struct NetworkDataResponse: NetworkResponse, CustomStringConvertible {
    /// The body.
    public let data: Data
    /// The status, headers and final URL.
    public let response: NetworkResponseHead
    /// The request as the caller built it.
    public let originalRequest: NetworkRequest
    /// How the call went: its attempts, their phase times, retries and cache status (empty for a
    /// response made by hand).
    public var metrics = NetworkMetrics()
    /// Whether this is the head of a `requestStream` call, as its interceptors see it: the body
    /// is handed to the caller as it arrives, so ``data`` is empty here.
    public package(set) var bodyIsStreamed = false

    /// Creates a data response.
    public init(data: Data, response: NetworkResponseHead, originalRequest: NetworkRequest) {
        self.data = data
        self.response = response
        self.originalRequest = originalRequest
    }

    /// The body.
    public func bodyData() -> Data { data }

    /// Wraps the failure as ``NetworkError/responseData(_:)``.
    public static func networkError(_ failure: NetworkError.ResponseFailure<NetworkDataResponse>) -> NetworkError {
        .responseData(failure)
    }

    /// `200 OK https://… (123 bytes)`.
    public var description: String { "\(redactedHead) (\(data.count) bytes)" }
}

extension NetworkDataResponse: CustomReflectable {
    /// Shows the head with the request's secrets redacted, so `dump(response)` cannot leak one.
    public var customMirror: Mirror { redactedMirror(body: (label: "data", value: data)) }
}
