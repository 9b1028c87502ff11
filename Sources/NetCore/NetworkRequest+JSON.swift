#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension NetworkRequest {
    /// The encoder used when none is given: sorted keys, so equal values give equal bodies
    /// (useful for caching, signing and tests).
    public static func defaultJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Creates a request whose body is `jsonBody` encoded as JSON, and adds
    /// `Content-Type: application/json` unless `headers` already set a content type.
    ///
    /// Throws ``NetworkError/RequestFailure/encodeError(type:description:)`` if encoding fails.
    public init<T: Encodable>(
        url: URL,
        httpMethod: NetworkHttpMethod,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        jsonBody: T,
        encoder: JSONEncoder = NetworkRequest.defaultJSONEncoder(),
        timeout: Duration? = nil
    ) throws {
        let data: Data
        do {
            data = try encoder.encode(jsonBody)
        } catch {
            throw NetworkError.request(.encodeError(type: String(describing: T.self), description: String(describing: error)))
        }
        var allHeaders = headers ?? []
        if !allHeaders.contains(where: { NetworkHeaders.sameName($0.name, "Content-Type") }) {
            allHeaders.append(NetworkHeader(name: "Content-Type", value: "application/json"))
        }
        try self.init(url: url, httpMethod: httpMethod, headers: allHeaders, query: query, body: .data(data), timeout: timeout)
    }

    /// Creates a request from a URL string whose body is `jsonBody` encoded as JSON, like the `URL`
    /// variant.
    public init<T: Encodable>(
        url: String,
        httpMethod: NetworkHttpMethod,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        jsonBody: T,
        encoder: JSONEncoder = NetworkRequest.defaultJSONEncoder(),
        timeout: Duration? = nil
    ) throws {
        try self.init(
            url: URLValidation.parse(url), httpMethod: httpMethod, headers: headers, query: query,
            jsonBody: jsonBody, encoder: encoder, timeout: timeout)
    }
}
