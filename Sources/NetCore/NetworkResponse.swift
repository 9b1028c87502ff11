#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``NetworkDataResponse``, ``NetworkDownloadResponse`` and ``NetworkUploadResponse`` share:
/// a head, the request that produced it and a body, with chainable validation and JSON decoding.
///
/// ```swift
/// let films = try await session.requestData(for: request)
///     .validate()
///     .jsonDecode(FilmsSearchDTO<[FilmDTO]>.self)
/// ```
public protocol NetworkResponse: Sendable {
    /// The status, headers and final URL.
    var response: NetworkResponseHead { get }
    /// The request as the caller built it, before any interceptor changed it.
    var originalRequest: NetworkRequest { get }
    /// How the call went (see ``NetworkMetrics``).
    var metrics: NetworkMetrics { get }
    /// The body's bytes; a download reads its file.
    func bodyData() throws -> Data
    /// Wraps a failure about this kind of response in the matching ``NetworkError`` case.
    static func networkError(_ failure: NetworkError.ResponseFailure<Self>) -> NetworkError
}

extension NetworkResponse {
    /// Empty metrics, for a response type that does not record any.
    public var metrics: NetworkMetrics { NetworkMetrics() }

    /// The response's status code.
    public var statusCode: HTTPCode { response.statusCode }

    /// Returns `self` if the status is in `correctRange`, else throws
    /// ``NetworkError/ResponseFailure/invalidStatusCode(_:_:)`` carrying this response.
    @discardableResult
    public func validate(correctRange: HTTPCodes = .success) throws -> Self {
        guard correctRange ~= statusCode else {
            throw Self.networkError(.invalidStatusCode(self, statusCode))
        }
        return self
    }

    /// Returns `self` if the status is in the half-open range, such as `200..<300`.
    @discardableResult
    public func validate(correctRange: Range<Int>) throws -> Self {
        try validate(correctRange: HTTPCodes(correctRange))
    }

    /// Returns `self` if the status is in the closed range, such as `200...299`.
    @discardableResult
    public func validate(correctRange: ClosedRange<Int>) throws -> Self {
        try validate(correctRange: HTTPCodes(correctRange))
    }

    /// Returns `self` if the status is in `correctRange`. Otherwise decodes the server's own error
    /// model from the body and throws it, so callers can `catch let error as APIError`; if the
    /// body is not that model, throws ``NetworkError/ResponseFailure/invalidStatusCode(_:_:)``.
    /// A downloaded body over 1 MiB is not read back for the model (a download's file may be of
    /// any size): that too throws `invalidStatusCode`. When the model is thrown, a download's body
    /// in a temporary file of Net's is removed, as the model does not carry the file's name; a
    /// destination you named stays.
    @discardableResult
    public func validate<ServerError: Decodable & Error>(
        correctRange: HTTPCodes = .success,
        errorModel: ServerError.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) throws -> Self {
        guard correctRange ~= statusCode else {
            if let body = errorBody(), !body.isEmpty,
                let serverError = try? decoder.decode(ServerError.self, from: body)
            {
                (self as? NetworkDownloadResponse)?.removeTemporaryFile()
                throw serverError
            }
            throw Self.networkError(.invalidStatusCode(self, statusCode))
        }
        return self
    }

    /// Returns `self` if `Content-Type` matches one of `acceptable` (`application/json`,
    /// `text/*`, `*/*`; parameters such as `charset` are ignored). A response without a body
    /// passes; a body without a `Content-Type` does not.
    @discardableResult
    public func validateContentType(_ acceptable: [String]) throws -> Self {
        if hasNoBodyByDefinition { return self }
        guard let essence = response.mimeType else {
            if bodyIsEmpty { return self }
            throw Self.networkError(.invalidContentType(self, expected: acceptable, actual: response.headers["Content-Type"]))
        }
        guard acceptable.contains(where: { MediaType.matches(essence, pattern: $0) }) else {
            throw Self.networkError(.invalidContentType(self, expected: acceptable, actual: response.headers["Content-Type"]))
        }
        return self
    }

    /// Decodes the body as JSON.
    ///
    /// An empty body (and any body of a 204, 205, 304 or HEAD response, which have none by definition)
    /// decodes to `nil` for an optional type and to ``NetworkEmpty`` for that type; for other
    /// types it is a ``NetworkError/ResponseFailure/decodeError(_:_:)`` saying so. A failed decode
    /// names the type, the coding path and the first bytes of the body.
    public func jsonDecode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        let body = hasNoBodyByDefinition ? Data() : try readBody()
        if body.isEmpty {
            if let emptyType = T.self as? any NetworkEmptyDecodable.Type, let empty = emptyType.emptyValue() as? T {
                return empty
            }
            let why = hasNoBodyByDefinition
                ? "a \(statusCode) response to \(originalRequest.httpMethod) has no body"
                : "the body is empty"
            throw Self.networkError(.decodeError(self, NetworkDecodingFailure(type: T.self, body: body, message: "\(why); decode an Optional or NetworkEmpty to accept that")))
        }
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw Self.networkError(.decodeError(self, NetworkDecodingFailure(type: T.self, body: body, error: error)))
        }
    }

    /// Whether the response carries no body by definition (``NetworkResponseHead/hasNoBody(answering:)``).
    package var hasNoBodyByDefinition: Bool {
        response.hasNoBody(answering: originalRequest.httpMethod)
    }

    /// The body, to decode an error model from: a download's only if its file holds at most
    /// 1 MiB, so that an error page of any size is not read into memory.
    private func errorBody() -> Data? {
        if let download = self as? NetworkDownloadResponse { return download.bodyData(upTo: 1 << 20) }
        return try? bodyData()
    }

    /// Whether the body is empty, without reading a download's file.
    private var bodyIsEmpty: Bool {
        if let download = self as? NetworkDownloadResponse { return (try? FileStatus.regularFileSize(of: download.url)) == 0 }
        return (try? bodyData())?.isEmpty == true
    }

    private func readBody() throws -> Data {
        do {
            return try bodyData()
        } catch let error as NetworkError {
            throw error
        } catch {
            throw Self.networkError(.unreadableBody(self, reason: String(describing: error)))
        }
    }
}
