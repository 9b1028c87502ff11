#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded`, byte for byte as the WHATWG URL standard's serializer
/// writes it (what browsers send for an HTML form): names and values are UTF-8; every byte but
/// ASCII letters, digits and `*-._` is percent-encoded in upper-case hex, and a space becomes `+`.
///
/// ```swift
/// let body = URLEncodedForm.serialize([("name", "Ann Smith"), ("city", "Oslo & Bergen")])
/// // body == "name=Ann+Smith&city=Oslo+%26+Bergen"
/// ```
public enum URLEncodedForm: Sendable {
    /// The pairs, in order, as `name=value` joined with `&`.
    public static func serialize(_ pairs: [(name: String, value: String)]) -> String {
        var output: [UInt8] = []
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            append(pair.name, to: &output)
            output.append(UInt8(ascii: "="))
            append(pair.value, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func append(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                PercentEncoding.appendEscape(of: byte, to: &output)
            }
        }
    }
}

extension NetworkRequest {
    /// Creates a request whose body is `form`, URL-encoded (``URLEncodedForm``), with
    /// `Content-Type: application/x-www-form-urlencoded` unless `headers` set a content type.
    public init(
        url: URL,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        form: [(name: String, value: String)],
        timeout: Duration? = nil
    ) throws {
        var allHeaders = headers ?? []
        if !allHeaders.contains(where: { NetworkHeaders.sameName($0.name, "Content-Type") }) {
            allHeaders.append(NetworkHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        try self.init(url: url, httpMethod: httpMethod, headers: allHeaders, query: query,
                      body: .data(Data(URLEncodedForm.serialize(form).utf8)), timeout: timeout)
    }

    /// Creates a request whose body is `value` encoded as a form by `encoder` (see
    /// ``URLEncodedFormEncoder`` for the rules), like the pairs variant.
    ///
    /// Throws ``NetworkError/RequestFailure/encodeError(type:description:)`` if `value` cannot be
    /// a form (it is not an object, or its own encoding fails).
    public init<T: Encodable>(
        url: URL,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        formBody value: T,
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        timeout: Duration? = nil
    ) throws {
        try self.init(url: url, httpMethod: httpMethod, headers: headers, query: query, form: try encoder.encode(value), timeout: timeout)
    }
}

extension NetworkRequest {
    /// Creates a request from a URL string whose body is `form`, URL-encoded, like the `URL` variant.
    public init(
        url: String,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        form: [(name: String, value: String)],
        timeout: Duration? = nil
    ) throws {
        try self.init(url: URLValidation.parse(url), httpMethod: httpMethod, headers: headers, query: query, form: form, timeout: timeout)
    }

    /// Creates a request from a URL string whose body is `value` encoded as a form, like the
    /// `URL` variant.
    public init<T: Encodable>(
        url: String,
        httpMethod: NetworkHttpMethod = .post,
        headers: [NetworkHeader]? = nil,
        query: [NetworkQuery]? = nil,
        formBody value: T,
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        timeout: Duration? = nil
    ) throws {
        try self.init(url: URLValidation.parse(url), httpMethod: httpMethod, headers: headers, query: query,
                      formBody: value, encoder: encoder, timeout: timeout)
    }
}

extension NetworkQuery {
    /// The query parameters `value` encodes to, in order, by `encoder`'s rules (a search filter
    /// struct as `?q=…&tags[]=…`). Throws ``NetworkError/RequestFailure/encodeError(type:description:)``
    /// if `value` cannot be a form.
    public static func encoding<T: Encodable>(_ value: T, encoder: URLEncodedFormEncoder = URLEncodedFormEncoder()) throws -> [NetworkQuery] {
        try encoder.encode(value).map { NetworkQuery(key: $0.name, value: $0.value) }
    }
}
