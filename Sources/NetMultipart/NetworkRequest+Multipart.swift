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
        let form = try NetworkMultipartForm(parts: multipartForm, boundary: boundary)
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query,
                      body: .stream(form.bodyStream()), timeout: timeout)
        try self.headers.set(name: "Content-Type", value: form.contentType)
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
        let form = try NetworkMultipartForm(parts: multipartForm, boundary: boundary)
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query,
                      body: .stream(form.bodyStream()), timeout: timeout)
        try self.headers.set(name: "Content-Type", value: form.contentType)
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
}
