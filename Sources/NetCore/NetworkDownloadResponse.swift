#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A response whose body was written to a file.
///
/// The file belongs to the caller: move it or delete it when done.
public struct NetworkDownloadResponse: NetworkResponse, CustomStringConvertible {
    /// Where the body was written.
    public let url: URL
    /// The status, headers and final URL.
    public let response: NetworkResponseHead
    /// The request as the caller built it.
    public let originalRequest: NetworkRequest
    /// How the call went: its attempts, their phase times, retries and cache status (empty for a
    /// response made by hand).
    public var metrics = NetworkMetrics()
    /// Whether ``url`` is a temporary file Net named (``newTemporaryFile()``), not a destination
    /// the caller gave: only such a file is removed by ``validate(correctRange:errorModel:decoder:)``.
    package var isNetsTemporaryFile = false

    /// Creates a download response.
    public init(url: URL, response: NetworkResponseHead, originalRequest: NetworkRequest) {
        self.url = url
        self.response = response
        self.originalRequest = originalRequest
    }

    /// Reads the downloaded file; throws ``NetworkError/ResponseFailure/unreadableBody(_:reason:)``
    /// if it is gone or unreadable.
    public func bodyData() throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw NetworkError.responseDownload(.unreadableBody(self, reason: String(describing: error)))
        }
    }

    /// A new file name in the temporary directory, for a body with no destination of its own (a
    /// download without one, or another status's body than a success's).
    package static func newTemporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(temporaryFilePrefix)\(UUID().uuidString)")
    }

    private static let temporaryFilePrefix = "net-download-"

    /// Removes the file if Net named it, never a destination of the caller's: for a body whose
    /// only handle is about to be lost.
    func removeTemporaryFile() {
        guard isNetsTemporaryFile else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// The file's bytes if it is a regular file of at most `limit` bytes; `nil` if larger,
    /// unreadable, or changed while read (``FileChunkReader`` insists on the size it saw).
    func bodyData(upTo limit: Int) -> Data? {
        guard let size = try? FileStatus.regularFileSize(of: url), size <= limit,
              let reader = try? FileChunkReader(url: url, expectedSize: size) else { return nil }
        var body = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        do {
            while let count = try body.withUnsafeMutableBytes({ try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }) {
                filled += count
            }
        } catch {
            return nil
        }
        return Data(body)
    }

    /// Wraps the failure as ``NetworkError/responseDownload(_:)``.
    public static func networkError(_ failure: NetworkError.ResponseFailure<NetworkDownloadResponse>) -> NetworkError {
        .responseDownload(failure)
    }

    /// `200 OK https://… -> /path/to/file`.
    public var description: String { "\(redactedHead) -> \(url.path)" }
}

extension NetworkDownloadResponse: CustomReflectable {
    /// Shows the head with the request's secrets redacted, so `dump(response)` cannot leak one.
    public var customMirror: Mirror { redactedMirror(body: (label: "url", value: url)) }
}
