import Foundation
import NetCore

/// A response that reached the session, handed to ``NetworkSession/interceptResponse(networkSession:originalRequest:retryNumber:result:)``.
public enum NetworkSessionInterception: Sendable {
    /// A response held in memory. For a ``NetworkSession/requestStream(for:)`` call it carries
    /// the head with an empty `data`: the body is still arriving and is the caller's to read
    /// (retrying drops it, which closes its connection).
    case data(NetworkDataResponse)
    /// A response written to a file.
    case download(NetworkDownloadResponse)
    /// The reply to an upload.
    case upload(NetworkUploadResponse)

    /// Status, headers and final URL, whatever the kind.
    public var response: NetworkResponseHead {
        switch self {
        case .data(let response): response.response
        case .download(let response): response.response
        case .upload(let response): response.response
        }
    }

    /// The status code, whatever the kind.
    public var statusCode: HTTPCode { response.statusCode }

    /// How the call went so far, whatever the kind (see ``NetworkMetrics``).
    public var metrics: NetworkMetrics {
        switch self {
        case .data(let response): response.metrics
        case .download(let response): response.metrics
        case .upload(let response): response.metrics
        }
    }

    /// The same response carrying `metrics`, moved rather than copied (a copy retains each
    /// reference the response holds).
    consuming func with(_ metrics: NetworkMetrics) -> NetworkSessionInterception {
        switch consume self {
        case .data(let response): .data((consume response).carrying(metrics))
        case .download(let response): .download((consume response).carrying(metrics))
        case .upload(let response): .upload((consume response).carrying(metrics))
        }
    }
}

extension NetworkDataResponse {
    fileprivate consuming func carrying(_ metrics: NetworkMetrics) -> Self {
        self.metrics = metrics
        return consume self
    }
}

extension NetworkDownloadResponse {
    fileprivate consuming func carrying(_ metrics: NetworkMetrics) -> Self {
        self.metrics = metrics
        return consume self
    }
}

extension NetworkUploadResponse {
    fileprivate consuming func carrying(_ metrics: NetworkMetrics) -> Self {
        self.metrics = metrics
        return consume self
    }
}

/// What an interceptor decides after seeing a response or an error.
public enum NetworkSessionInterceptionResult: Sendable {
    /// Hand the result to the caller as it is.
    case nothing
    /// Send this request now (it goes through `interceptRequest` again).
    case retry(any NetworkRequestConvertible)
    /// Wait `delay`, then send this request; cancelling the caller's task ends the wait. A
    /// `delay` the call's deadline would not outlast hands the result to the caller at once
    /// instead, as ``nothing`` does (a wait that ended in a timeout would lose it).
    case retryAfter(Duration, any NetworkRequestConvertible)
}
