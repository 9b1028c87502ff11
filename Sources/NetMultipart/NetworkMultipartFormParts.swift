#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A plain field: a name and a value (text or bytes), as ALTENNetwork's data part.
public struct NetworkMultipartFormDataRequest: NetworkMultipartFormDataConvertible {
    /// The field name.
    public let name: String
    /// The value's bytes.
    public let value: Data
    /// A `Content-Type` for the value, or `nil` for none (read as `text/plain`).
    public let contentType: String?
    /// More `Content-Disposition` parameters.
    public let additionalContentDispositionParameters: [ContentDispositionParameter]
    /// More part headers.
    public let additionalHeaders: [NetworkHeader]

    /// Creates a field from bytes.
    public init(name: String, value: Data, contentType: String? = nil,
                additionalContentDispositionParameters: [ContentDispositionParameter] = [],
                additionalHeaders: [NetworkHeader] = []) {
        self.name = name
        self.value = value
        self.contentType = contentType
        self.additionalContentDispositionParameters = additionalContentDispositionParameters
        self.additionalHeaders = additionalHeaders
    }

    /// Creates a text field, sent as UTF-8.
    public init(name: String, value: String,
                additionalContentDispositionParameters: [ContentDispositionParameter] = [],
                additionalHeaders: [NetworkHeader] = []) {
        self.init(name: name, value: Data(value.utf8), additionalContentDispositionParameters: additionalContentDispositionParameters,
                  additionalHeaders: additionalHeaders)
    }

    /// The field as a part.
    public func multipartPart() throws -> MultipartPart {
        MultipartPart(name: name, contentType: contentType,
                      additionalContentDispositionParameters: additionalContentDispositionParameters,
                      additionalHeaders: additionalHeaders, body: .data(value))
    }
}

/// A file field, from bytes in memory or from a file on disk (streamed, never loaded whole).
public struct NetworkMultipartFormFileRequest: NetworkMultipartFormDataConvertible {
    /// The field name.
    public let name: String
    /// The filename sent to the server.
    public let filename: String
    /// The bytes or the file.
    public let source: MultipartPart.Body
    /// The `Content-Type`; inferred from the filename's extension when `nil`.
    public let contentType: String?
    /// More `Content-Disposition` parameters.
    public let additionalContentDispositionParameters: [ContentDispositionParameter]
    /// More part headers.
    public let additionalHeaders: [NetworkHeader]

    /// Creates a file field from bytes in memory (ALTENNetwork's initialiser).
    public init(name: String, filename: String, value: Data, contentType: String? = nil,
                additionalContentDispositionParameters: [ContentDispositionParameter] = [],
                additionalHeaders: [NetworkHeader] = []) {
        self.name = name
        self.filename = filename
        self.source = .data(value)
        self.contentType = contentType
        self.additionalContentDispositionParameters = additionalContentDispositionParameters
        self.additionalHeaders = additionalHeaders
    }

    /// Creates a file field from a file on disk; `filename` defaults to the file's own name.
    public init(name: String, fileURL: URL, filename: String? = nil, contentType: String? = nil,
                additionalContentDispositionParameters: [ContentDispositionParameter] = [],
                additionalHeaders: [NetworkHeader] = []) {
        self.name = name
        self.filename = filename ?? fileURL.lastPathComponent
        self.source = .file(fileURL)
        self.contentType = contentType
        self.additionalContentDispositionParameters = additionalContentDispositionParameters
        self.additionalHeaders = additionalHeaders
    }

    /// The file as a part, typed by ``MediaTypes/type(forFilename:)`` unless given.
    public func multipartPart() throws -> MultipartPart {
        MultipartPart(name: name, filename: filename, contentType: contentType ?? MediaTypes.type(forFilename: filename),
                      additionalContentDispositionParameters: additionalContentDispositionParameters,
                      additionalHeaders: additionalHeaders, body: source)
    }
}

/// A JSON field: an `Encodable` value sent with `Content-Type: application/json`.
public struct NetworkMultipartFormJsonRequest<Value: Encodable & Sendable>: NetworkMultipartFormDataConvertible {
    /// The field name.
    public let name: String
    /// The value to encode.
    public let value: Value
    /// The encoder; keys sorted by default.
    public let encoder: JSONEncoder
    /// More `Content-Disposition` parameters.
    public let additionalContentDispositionParameters: [ContentDispositionParameter]
    /// More part headers.
    public let additionalHeaders: [NetworkHeader]

    /// Creates a JSON field.
    public init(name: String, value: Value, encoder: JSONEncoder = NetworkRequest.defaultJSONEncoder(),
                additionalContentDispositionParameters: [ContentDispositionParameter] = [],
                additionalHeaders: [NetworkHeader] = []) {
        self.name = name
        self.value = value
        self.encoder = encoder
        self.additionalContentDispositionParameters = additionalContentDispositionParameters
        self.additionalHeaders = additionalHeaders
    }

    /// The encoded value as a part; encoding failures are ``NetworkError/RequestFailure/encodeError(type:description:)``.
    public func multipartPart() throws -> MultipartPart {
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw NetworkError.request(.encodeError(type: String(describing: Value.self), description: "\(error)"))
        }
        return MultipartPart(name: name, contentType: "application/json",
                             additionalContentDispositionParameters: additionalContentDispositionParameters,
                             additionalHeaders: additionalHeaders, body: .data(data))
    }
}
