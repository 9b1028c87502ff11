#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// Anything that can be one part of a `multipart/form-data` body: Net's three part kinds, or your own.
///
/// A part describes itself (name, filename, type, extra headers and where its bytes come from)
/// and the encoder frames, escapes and streams it. Implement ``multipartPart()`` for your own kinds:
///
/// ```swift
/// struct CSVPart: NetworkMultipartFormDataConvertible {
///     let name: String
///     let rows: [[String]]
///     func multipartPart() throws -> MultipartPart {
///         let text = rows.map { $0.joined(separator: ",") }.joined(separator: "\r\n")
///         return MultipartPart(name: name, filename: "\(name).csv", contentType: "text/csv", body: .data(Data(text.utf8)))
///     }
/// }
/// ```
public protocol NetworkMultipartFormDataConvertible: Sendable {
    /// The part, described; throw a ``NetworkError`` when it cannot be built.
    func multipartPart() throws -> MultipartPart
}

/// One part of a form, as the encoder frames it.
public struct MultipartPart: Sendable {
    /// Where a part's bytes come from.
    public enum Body: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file, read from disk piece by piece while the form is sent.
        case file(URL)
    }

    /// The field name (`name=` in `Content-Disposition`).
    public var name: String
    /// The filename (`filename=`), for file fields.
    public var filename: String?
    /// The part's `Content-Type`, if any.
    public var contentType: String?
    /// More `Content-Disposition` parameters, in order, after `name` and `filename`.
    public var additionalContentDispositionParameters: [ContentDispositionParameter]
    /// More part headers, in order, after `Content-Type`.
    public var additionalHeaders: [NetworkHeader]
    /// The bytes.
    public var body: Body

    /// Creates a part.
    public init(
        name: String,
        filename: String? = nil,
        contentType: String? = nil,
        additionalContentDispositionParameters: [ContentDispositionParameter] = [],
        additionalHeaders: [NetworkHeader] = [],
        body: Body
    ) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.additionalContentDispositionParameters = additionalContentDispositionParameters
        self.additionalHeaders = additionalHeaders
        self.body = body
    }
}

/// An extra `Content-Disposition` parameter: a token name and a value written as a quoted string.
public struct ContentDispositionParameter: Sendable, Hashable {
    /// The parameter name; must be an HTTP token.
    public var name: String
    /// The value; escaped like field names.
    public var value: String

    /// Creates a parameter.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
