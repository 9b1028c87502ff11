#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response to an upload, with the server's reply in memory and a note of what was sent.
public struct NetworkUploadResponse: NetworkResponse, CustomStringConvertible {
    /// What an upload sent.
    public enum UploadType: Sendable {
        /// Bytes from memory.
        case data(Data)
        /// A file, streamed from disk.
        case file(URL)
        /// A streamed body, with its length when known.
        case stream(length: Int64?)
    }

    /// The server's reply.
    public let data: Data
    /// The status, headers and final URL.
    public let response: NetworkResponseHead
    /// The request as the caller built it.
    public let originalRequest: NetworkRequest
    /// How the call went: its attempts, their phase times, retries and cache status (empty for a
    /// response made by hand).
    public var metrics = NetworkMetrics()
    /// What was uploaded.
    public let uploadType: UploadType

    /// Creates an upload response.
    public init(data: Data, response: NetworkResponseHead, originalRequest: NetworkRequest, uploadType: UploadType) {
        self.data = data
        self.response = response
        self.originalRequest = originalRequest
        self.uploadType = uploadType
    }

    /// The server's reply.
    public func bodyData() -> Data { data }

    /// Wraps the failure as ``NetworkError/responseUpload(_:)``.
    public static func networkError(_ failure: NetworkError.ResponseFailure<NetworkUploadResponse>) -> NetworkError {
        .responseUpload(failure)
    }

    /// `200 OK https://… (123 bytes)`.
    public var description: String { "\(redactedHead) (\(data.count) bytes)" }
}

extension NetworkUploadResponse: CustomReflectable {
    /// Shows the head with the request's secrets redacted, so `dump(response)` cannot leak one.
    public var customMirror: Mirror { redactedMirror(body: (label: "data", value: data)) }
}
