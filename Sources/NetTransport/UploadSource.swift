import Foundation
import NetCore

/// A request body in the form URLSession can send: in memory or from a file.
enum UploadSource: Sendable {
    case none
    case data(Data)
    /// A file; `spooled` files were written by Net from a stream and are Net's to delete.
    case file(URL, spooled: Bool)

    /// Reads the body's form: files are checked now, streams are written to a temporary file.
    static func prepare(_ body: NetworkRequestBody, spoolDirectory: URL) async throws -> UploadSource {
        switch body {
        case .none: return .none
        case .data(let data): return data.isEmpty ? .none : .data(data)
        case .file(let url):
            _ = try body.contentLength()
            return .file(url, spooled: false)
        case .stream(let stream):
            return .file(try await spool(stream, into: spoolDirectory), spooled: true)
        }
    }

    /// Writes every chunk of `stream` to a new file; the file is removed if anything fails.
    private static func spool(_ stream: NetworkBodyStream, into directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("net-upload-\(UUID().uuidString)")
        let file = try BodyFile.create(at: url)
        do {
            var reader = stream.makeReader()
            var writer = FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0)
            while let chunk = try await reader.next() {
                try Task.checkCancellation()
                try writer.write(chunk)
            }
            try file.close()
            return url
        } catch {
            try? file.close()
            BodyFile.remove(url)
            throw error
        }
    }

    /// Deletes the spooled file, if Net made one.
    func removeSpooledFile() {
        if case .file(let url, spooled: true) = self { BodyFile.remove(url) }
    }
}

/// A caller's file URLSession is sending, as it was when the send began. FoundationNetworking
/// takes the length when the task starts and then reads the file to its end, and libcurl 7.88
/// neither stops at that length nor fails a short read: a file that grew sent more bytes than its
/// `Content-Length` (which the server may read as the start of another request), and one that
/// shrank left both sides waiting until the deadline. The file is checked as its pieces go out and
/// once more when the exchange ends, through a descriptor of its own: a file renamed over the
/// path meanwhile (an atomic save) leaves the one being sent as it was, and is no change.
final class SentFileCheck: Sendable {
    private let url: URL
    private let descriptor: Int32
    private let before: FileStatus.Snapshot?

    /// A check of `upload`'s file, if it is one of the caller's (Net's own spool files do not
    /// change) and can be opened.
    init?(_ upload: UploadSource) {
        guard case .file(let url, spooled: false) = upload else { return nil }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }  // URLSession's own open reports it
        self.url = url
        self.descriptor = descriptor
        before = FileStatus.snapshot(of: descriptor)
    }

    deinit { close(descriptor) }

    /// Throws ``NetworkError/RequestFailure/unreadableBodyFile(path:reason:)`` if the file has
    /// changed since the send began.
    func check() throws {
        guard FileStatus.snapshot(of: descriptor) != before else { return }
        throw NetworkError.request(.unreadableBodyFile(path: url.path, reason: "the file changed while it was being sent"))
    }
}
