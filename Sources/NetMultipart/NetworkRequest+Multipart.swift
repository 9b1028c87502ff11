#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

extension NetworkRequest {
    /// Creates a request whose body is a streamed `multipart/form-data` form (ALTENNetwork's
    /// initialiser), with `Content-Type: multipart/form-data; boundary=…`.
    public init(
        url: URL,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        multipartForm: [any NetworkMultipartFormDataConvertible],
        boundary: String? = nil,
        timeout: Duration? = nil
    ) throws {
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query, body: .none, timeout: timeout)
        try attach(NetworkMultipartForm(parts: multipartForm, boundary: boundary))
    }

    /// Creates a multipart request from a URL string; see the `URL` variant.
    public init(
        url: String,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        multipartForm: [any NetworkMultipartFormDataConvertible],
        boundary: String? = nil,
        timeout: Duration? = nil
    ) throws {
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query, body: .none, timeout: timeout)
        try attach(NetworkMultipartForm(parts: multipartForm, boundary: boundary))
    }

    /// Creates a multipart request with a single part, as ALTENNetwork's README writes it.
    public init(
        url: String,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        multipartForm part: any NetworkMultipartFormDataConvertible
    ) throws {
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query, multipartForm: [part])
    }

    /// Makes `form` the body and labels it with the form's `Content-Type`.
    private mutating func attach(_ form: NetworkMultipartForm) throws {
        body = .stream(form.bodyStream())
        try headers.set(name: "Content-Type", value: form.contentType)
    }
}
