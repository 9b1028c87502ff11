import Foundation
import NetCore

/// The kind of a session call, which decides where the body goes and what the response is.
enum SessionCall {
    case data
    case download(URL)
    /// An upload; the body replaces the request's own when given.
    case upload(NetworkRequestBody?)

    /// Thrown if a call ever produced a response of another kind; the loop below cannot do that.
    static let mismatch = NetworkError.transport(.other("internal error: the session produced a response of the wrong kind"))
}

extension NetworkSession {
    /// The retry loop behind every request method.
    func perform(
        _ convertible: any NetworkRequestConvertible, call: SessionCall, progress: NetworkProgressReporter?
    ) async throws -> NetworkSessionInterception {
        var request = try convertible.asNetworkRequest()
        if case .upload(let body?) = call { request.body = body }
        let callersRequest = request
        let report: TransportProgressHandler? = if let progress { { event in progress.yield(event) } } else { nil }
        var retryNumber = 0
        while true {
            try Task.checkCancellation()
            let sent = try await interceptRequest(networkSession: self, originalRequest: request).asNetworkRequest()
            let staging = DownloadStaging(call: call)
            let result: Result<NetworkSessionInterception, any Error>
            do {
                let response = try await transport.send(sent, to: staging.destination, progress: report)
                result = .success(Self.interception(response, call: call, sent: sent, callersRequest: callersRequest))
            } catch is CancellationError {
                staging.discard()
                throw CancellationError()
            } catch {
                staging.discard()
                result = .failure(error)
            }
            let decision: NetworkSessionInterceptionResult
            do {
                decision = try await interceptResponse(networkSession: self, originalRequest: sent, retryNumber: retryNumber, result: result)
            } catch {
                staging.discard()
                throw error
            }
            let next: any NetworkRequestConvertible
            var delay: Duration?
            switch decision {
            case .nothing:
                return try staging.complete(result)
            case .retry(let request):
                next = request
            case .retryAfter(let wait, let request):
                next = request
                delay = wait
            }
            guard retryNumber < maximumRetryCount else { return try staging.complete(result) }
            staging.discard()
            if let delay, delay > .zero { try await Task.sleep(for: delay) }
            request = try next.asNetworkRequest()
            retryNumber += 1
        }
    }

    private static func interception(
        _ response: TransportResponse, call: SessionCall, sent: NetworkRequest, callersRequest: NetworkRequest
    ) -> NetworkSessionInterception {
        switch call {
        case .data:
            return .data(NetworkDataResponse(data: response.body, response: response.head, originalRequest: callersRequest))
        case .download(let destination):
            let url = response.fileURL ?? destination
            return .download(NetworkDownloadResponse(url: url, response: response.head, originalRequest: callersRequest))
        case .upload:
            let uploadType: NetworkUploadResponse.UploadType = switch sent.body {
            case .none: .data(Data())
            case .data(let data): .data(data)
            case .file(let url): .file(url)
            case .stream(let stream): .stream(length: stream.length)
            }
            return .upload(NetworkUploadResponse(data: response.body, response: response.head,
                                                 originalRequest: callersRequest, uploadType: uploadType))
        }
    }
}
