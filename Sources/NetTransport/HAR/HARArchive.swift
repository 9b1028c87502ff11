import Foundation

/// The HTTP Archive (HAR) 1.2 format, as browsers' developer tools export it
/// (http://www.softwareishard.com/blog/har-12-spec/): the parts Net writes and reads.
public struct HARArchive: Codable, Sendable, Equatable {
    /// The archive's one `log` object.
    public var log: Log

    /// An archive of `entries`, written by Net.
    public init(entries: [Entry]) {
        log = Log(version: "1.2", creator: Creator(name: "Net", version: "1"), entries: entries)
    }

    /// Reads an archive from a HAR file's bytes.
    ///
    /// - Throws: ``HARError/malformed(_:)`` when the bytes are not a HAR 1.x log.
    public init(data: Data) throws {
        do { self = try JSONDecoder().decode(HARArchive.self, from: data) } catch {
            throw HARError.malformed("\(error)")
        }
    }

    /// The archive as JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// `log`: the version, the creator and the exchanges.
    public struct Log: Codable, Sendable, Equatable {
        /// The format version, `1.2`.
        public var version: String
        /// What wrote the archive.
        public var creator: Creator
        /// The exchanges, in the order they started.
        public var entries: [Entry]
    }

    /// `creator`: a name and a version.
    public struct Creator: Codable, Sendable, Equatable {
        /// The writer's name.
        public var name: String
        /// The writer's version.
        public var version: String
    }

    /// One exchange: a request and its response.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request started, ISO 8601 with milliseconds.
        public var startedDateTime: String
        /// Milliseconds from the start to the end of the body.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// Cache details (empty: Net records the exchange, not the cache's decision).
        public var cache: Cache
        /// Phase durations in milliseconds; `-1` where unknown.
        public var timings: Timings
        /// Why part of the entry is missing (a body too large to record), if it is.
        public var comment: String?
    }

    /// A name and value (header, query item).
    public struct NameValue: Codable, Sendable, Equatable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
    }

    /// `request`.
    public struct Request: Codable, Sendable, Equatable {
        /// The method.
        public var method: String
        /// The absolute URL, secret query values redacted.
        public var url: String
        /// `HTTP/1.1`.
        public var httpVersion: String
        /// Always empty: cookies are in the `Cookie` header, redacted.
        public var cookies: [NameValue]
        /// The header fields in order, credentials redacted.
        public var headers: [NameValue]
        /// The query items, secret values redacted.
        public var queryString: [NameValue]
        /// The body, when there is one.
        public var postData: PostData?
        /// `-1`: not known.
        public var headersSize: Int
        /// The body's size in bytes, `-1` when not known (a stream).
        public var bodySize: Int
    }

    /// `postData`: a request body as text, or base64 in Net's custom field `_encoding` (HAR
    /// names custom fields with a leading underscore; `content.encoding` is the standard one).
    public struct PostData: Codable, Sendable, Equatable {
        /// The Content-Type.
        public var mimeType: String
        /// The body as UTF-8 text, or base64 when ``encoding`` says so; absent when not recorded
        /// (or, in browsers' archives, when the body is given as `params`).
        public var text: String?
        /// `base64` for a body that is not UTF-8 text.
        public var encoding: String?
        /// Why the body is not recorded, if it is not.
        public var comment: String?

        /// A body's record.
        public init(mimeType: String, text: String? = nil, encoding: String? = nil, comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
        }

        enum CodingKeys: String, CodingKey {
            case mimeType, text, comment
            case encoding = "_encoding"
        }
    }

    /// `cache`: what a browser's cache knew. Net records the exchange itself, so it writes `{}`;
    /// what other archives hold here is read and ignored.
    public struct Cache: Codable, Sendable, Equatable {
        /// An empty cache record.
        public init() {}
    }

    /// `response`.
    public struct Response: Codable, Sendable, Equatable {
        /// The status code.
        public var status: Int
        /// The reason phrase (Net's name for the code; the wire's is not kept by transports).
        public var statusText: String
        /// `HTTP/1.1`.
        public var httpVersion: String
        /// Always empty: cookies are in the `Set-Cookie` headers, redacted.
        public var cookies: [NameValue]
        /// The header fields, credentials redacted.
        public var headers: [NameValue]
        /// The body.
        public var content: Content
        /// The `Location` of a redirect, or empty.
        public var redirectURL: String
        /// `-1`: not known.
        public var headersSize: Int
        /// The body's size as received, in bytes.
        public var bodySize: Int
    }

    /// `content`: the response body.
    public struct Content: Codable, Sendable, Equatable {
        /// The body's size in bytes.
        public var size: Int
        /// The Content-Type, or empty.
        public var mimeType: String
        /// The body as UTF-8 text, or base64 when ``encoding`` is `base64`; absent when not recorded.
        public var text: String?
        /// `base64` for a body that is not UTF-8 text.
        public var encoding: String?
        /// Why the body is not recorded, if it is not.
        public var comment: String?
    }

    /// `timings`, in milliseconds.
    public struct Timings: Codable, Sendable, Equatable {
        /// Sending the request.
        public var send: Double
        /// From sent to the response head.
        public var wait: Double
        /// Reading the body.
        public var receive: Double
    }
}

/// Why a HAR file could not be used.
public enum HARError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a HAR log (the decoder's account).
    case malformed(String)
    /// The file cannot be read.
    case unreadable(path: String, reason: String)

    /// A readable account of the failure.
    public var description: String {
        switch self {
        case .malformed(let reason): "not a HAR 1.2 log: \(reason)"
        case .unreadable(let path, let reason): "cannot read the HAR file \(path): \(reason)"
        }
    }
}
