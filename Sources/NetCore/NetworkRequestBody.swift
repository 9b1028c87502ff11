#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request sends: nothing, bytes in memory, a file read from disk as it is sent, or a
/// stream of chunks produced on demand (multipart forms, generated uploads).
///
/// Files and streams are never loaded into memory by Net; a transport reads them piece by piece.
public enum NetworkRequestBody: Sendable {
    /// No body.
    case none
    /// Bytes in memory.
    case data(Data)
    /// A file on disk, read as it is sent.
    case file(URL)
    /// Chunks produced on demand; see ``NetworkBodyStream``.
    case stream(NetworkBodyStream)

    /// `true` for ``none``.
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// The in-memory bytes, if the body is ``data(_:)``.
    public var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    /// The number of bytes the body will send, or `nil` when a stream does not know.
    ///
    /// For a file this reads its size now, and throws
    /// ``NetworkError/RequestFailure/unreadableBodyFile(path:reason:)`` if it is missing, is not a
    /// regular file or cannot be read.
    public func contentLength() throws -> Int64? {
        switch self {
        case .none: 0
        case .data(let data): Int64(data.count)
        case .file(let url): try FileStatus.regularFileSize(of: url)
        case .stream(let stream): stream.length
        }
    }
}
