#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a body could not be decoded: the type, where in the JSON, the decoder's message, and the
/// start of the body, so the cause is visible in a log line without a debugger.
public struct NetworkDecodingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type that was being decoded, such as `FilmsSearchDTO<Array<FilmDTO>>`.
    public let typeName: String
    /// The coding path where decoding stopped, such as `results[3].title`; empty at the top level.
    public let codingPath: String
    /// The decoder's explanation.
    public let message: String
    /// The first bytes of the body as text (invalid UTF-8 shown as U+FFFD), at most 256 bytes.
    public let bodyPrefix: String
    /// The body's full size in bytes.
    public let bodyByteCount: Int

    /// How many body bytes the failure quotes.
    public static let bodyPrefixLimit = 256

    /// Describes a decoding failure with the decoder's error.
    public init(type: Any.Type, body: Data, error: any Error) {
        let (path, message) = Self.explain(error)
        self.init(type: type, body: body, codingPath: path, message: message)
    }

    /// Describes a decoding failure with a message of its own.
    public init(type: Any.Type, body: Data, message: String) {
        self.init(type: type, body: body, codingPath: "", message: message)
    }

    private init(type: Any.Type, body: Data, codingPath: String, message: String) {
        typeName = String(describing: type)
        self.codingPath = codingPath
        self.message = message
        bodyPrefix = String(decoding: body.prefix(Self.bodyPrefixLimit), as: UTF8.self)
        bodyByteCount = body.count
    }

    /// `Could not decode T at results[3].title: … Body (1234 bytes) starts: {…`.
    public var description: String {
        let location = codingPath.isEmpty ? "" : " at \(codingPath)"
        let truncated = bodyByteCount > Self.bodyPrefixLimit ? "…" : ""
        let sentence = message.hasSuffix(".") ? String(message.dropLast()) : message
        return "could not decode \(typeName)\(location): \(sentence). Body (\(bodyByteCount) bytes): \(bodyPrefix.debugDescription)\(truncated)"
    }

    private static func explain(_ error: any Error) -> (path: String, message: String) {
        guard let decodingError = error as? DecodingError else { return ("", String(describing: error)) }
        switch decodingError {
        case .typeMismatch(let type, let context):
            return (path(context.codingPath), "expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "missing \(type) value: \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return (path(context.codingPath + [key]), "missing key \"\(key.stringValue)\": \(context.debugDescription)")
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ("", String(describing: decodingError))
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var result = ""
        for key in keys {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return result
    }
}
