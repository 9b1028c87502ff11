#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A `multipart/form-data` body (RFC 7578, framed as browsers do), encoded as a stream whose exact
/// length is known before the first byte is sent.
///
/// Building a form reads each part's description and the size of each file, nothing more; file
/// parts are read from disk piece by piece as the body is sent, so a 1 GiB file costs a few
/// hundred KiB of memory. Framing is CRLF throughout, each part opens with `--boundary` and the
/// body ends with `--boundary--`; the default boundary carries 128 random bits.
public struct NetworkMultipartForm: Sendable {
    /// The boundary between parts.
    public let boundary: String
    /// The exact size of the encoded body in bytes.
    public let contentLength: Int64
    private let segments: [MultipartSegment]

    /// The chunk size of ``bodyStream(chunkSize:)``: 64 KiB.
    public static let defaultChunkSize = 64 * 1024

    /// The largest chunk ``bodyStream(chunkSize:)`` makes, 16 MiB: the form is streamed, and a
    /// larger chunk size would read a large file into memory whole.
    public static let largestChunkSize = 16 << 20

    /// Encodes `parts` in order.
    ///
    /// - Parameter boundary: your own boundary (1–70 characters from RFC 2046's set, not ending in
    ///   a space), or `nil` for a random one.
    /// - Throws: ``NetworkError`` for an invalid part header or boundary, no parts at all, a data
    ///   part that contains the boundary, or a missing or unreadable file. A file part that contains a boundary of
    ///   your own fails the body's stream as it is read, with the same error as a data part's.
    public init(parts: [any NetworkMultipartFormDataConvertible], boundary: String? = nil) throws {
        // Files are searched for a boundary of the caller's as they are sent (they are not read
        // here); a random one of 128 bits cannot be in them unless chosen to be.
        let forbiddenInFiles = boundary != nil
        let boundary = try boundary.map(Self.validated) ?? Self.randomBoundary()
        guard !parts.isEmpty else {
            // RFC 2046 §5.1.1: a multipart body holds at least one part.
            throw NetworkError.request(.encodeError(type: "multipart form", description: "a form needs at least one part"))
        }
        let delimiter = Data("--\(boundary)\r\n".utf8)
        let marker = Data("--\(boundary)".utf8)
        var segments: [MultipartSegment] = []
        var length: Int64 = 0
        for convertible in parts {
            let part = try convertible.multipartPart()
            var head = delimiter
            head.append(try PartHeaderEncoding.headerBlock(for: part))
            segments.append(.bytes(head))
            length = try Self.adding(Int64(head.count), to: length)
            switch part.body {
            case .data(let data):
                if data.firstRange(of: marker) != nil {
                    throw NetworkError.request(.encodeError(type: "multipart part \"\(part.name)\"", description: "the data contains the boundary \"\(boundary)\""))
                }
                segments.append(.bytes(data))
                length = try Self.adding(Int64(data.count), to: length)
            case .file(let url):
                let size = try NetworkRequestBody.file(url).contentLength() ?? 0
                try FileChunkReader.checkReadable(url)
                let forbidden = forbiddenInFiles ? ForbiddenMarker(marker: marker, part: part.name, boundary: boundary) : nil
                segments.append(.file(url, size: size, forbidden: forbidden))
                length = try Self.adding(size, to: length)
            }
            segments.append(.bytes(Data("\r\n".utf8)))
            length = try Self.adding(2, to: length)
        }
        let closing = Data("--\(boundary)--\r\n".utf8)
        segments.append(.bytes(closing))
        self.boundary = boundary
        self.segments = segments
        self.contentLength = try Self.adding(Int64(closing.count), to: length)
    }

    /// `length + count`, or a typed error past `Int64.max` bytes (sparse files can claim
    /// exabytes).
    private static func adding(_ count: Int64, to length: Int64) throws -> Int64 {
        let (sum, overflow) = length.addingReportingOverflow(count)
        guard !overflow else {
            throw NetworkError.request(.encodeError(type: "multipart form", description: "the form is longer than \(Int64.max) bytes"))
        }
        return sum
    }

    /// `multipart/form-data; boundary=…`, for the request's `Content-Type`; the boundary quoted
    /// when it holds a character a bare parameter value cannot (RFC 2045's tspecials: a space,
    /// `(`, `)`, `,`, `/`, `:`, `=`, `?`), so parsers read all of it.
    public var contentType: String {
        let bare = boundary.unicodeScalars.allSatisfy { !Self.needsQuoting.contains($0) }
        return "multipart/form-data; boundary=" + (bare ? boundary : "\"\(boundary)\"")
    }

    /// The boundary characters that are RFC 2045 tspecials (quotes and backslashes are refused).
    private static let needsQuoting = Set(" (),/:=?".unicodeScalars)

    /// The body as a stream of chunks of at most `chunkSize` bytes (from 1 to
    /// ``largestChunkSize``), replayable for retries and redirects. Its reader fails with a typed
    /// error if a file changes size meanwhile.
    public func bodyStream(chunkSize: Int = NetworkMultipartForm.defaultChunkSize) -> NetworkBodyStream {
        let chunks = MultipartChunks(segments: segments, length: contentLength, chunkSize: min(max(1, chunkSize), Self.largestChunkSize))
        return NetworkBodyStream(length: contentLength) { chunks }
    }

    /// The whole body in memory, for small forms: one of more than `limit` bytes (256 MiB by
    /// default) is a typed error instead of an allocation that could stop the process; send it
    /// with ``bodyStream(chunkSize:)``.
    public func encodedData(upTo limit: Int64 = 256 << 20) async throws -> Data {
        guard contentLength <= limit else {
            throw NetworkError.request(.encodeError(
                type: "multipart form", description: "the form is \(contentLength) bytes, over the \(limit) bytes encodedData holds in memory; send bodyStream() instead"))
        }
        var data = Data()
        data.reserveCapacity(Int(clamping: contentLength))
        var reader = bodyStream().makeReader()
        while let chunk = try await reader.next() { data.append(chunk) }
        return data
    }

    /// A random boundary: a fixed prefix and 128 random bits in hex.
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "NetFormBoundary" + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func validated(_ boundary: String) throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ".unicodeScalars)
        if let bad = boundary.unicodeScalars.first(where: { !allowed.contains($0) }) {
            throw NetworkError.request(.invalidHeader(name: "Content-Type", reason: .forbiddenValueCharacter(bad)))
        }
        guard (1...70).contains(boundary.unicodeScalars.count), !boundary.hasSuffix(" ") else {
            throw NetworkError.request(.encodeError(type: "multipart boundary", description: "a boundary has 1 to 70 characters and does not end in a space"))
        }
        return boundary
    }
}
