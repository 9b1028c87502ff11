import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A request body in the form URLSession can send: in memory or from a file.
enum UploadSource: Sendable {
    case none
    case data(Data)
    /// A file, the caller's or spooled by Net from a stream (``FileUpload/spooled``).
    case file(FileUpload)

    /// Streamed bodies up to this size are collected in memory and sent from there; larger ones
    /// are written to a temporary file first. 1 MiB: most API uploads, at a bounded cost per call
    /// in flight.
    static let inMemoryLimit: Int64 = 1 << 20

    /// Reads the body's form: files are checked now, streams are read into memory while small
    /// and written to a temporary file past that.
    static func prepare(_ body: NetworkRequestBody, spoolDirectory: URL) async throws -> UploadSource {
        switch body {
        case .none: return .none
        case .data(let data): return data.isEmpty ? .none : .data(data)
        case .file(let url):
            let size = try body.contentLength() ?? 0
            try FileChunkReader.checkReadable(url)  // before anything is sent, not at the first piece
            return size == 0 ? .none : .file(FileUpload(url: url, size: size, spooled: false))
        case .stream(let stream):
            return try await collectOrSpool(stream, into: spoolDirectory)
        }
    }

    /// The stream's chunks in memory while they come to at most ``inMemoryLimit`` bytes, else
    /// every chunk written to a new file, which is removed if anything fails.
    private static func collectOrSpool(_ stream: NetworkBodyStream, into directory: URL) async throws -> UploadSource {
        var reader = stream.makeReader()
        if let length = stream.length, length > inMemoryLimit {
            return .file(try await spool(first: Data(), rest: &reader, into: directory))  // large by its own word
        }
        var collected = Data()
        while let chunk = try await reader.next() {
            try Task.checkCancellation()
            collected.append(chunk)
            if Int64(collected.count) > inMemoryLimit {
                return .file(try await spool(first: collected, rest: &reader, into: directory))
            }
        }
        return collected.isEmpty ? .none : .data(collected)
    }

    /// Writes `first`, then every remaining chunk of `rest`, to a new file; the file is removed if
    /// anything fails.
    private static func spool(first: Data, rest reader: inout NetworkBodyStream.Reader, into directory: URL) async throws -> FileUpload {
        let url = directory.appendingPathComponent("net-upload-\(UUID().uuidString)")
        let file = try BodyFile.create(at: url)
        do {
            var writer = FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0)
            var size = Int64(first.count)
            try writer.write(first)
            while let chunk = try await reader.next() {
                try Task.checkCancellation()
                try writer.write(chunk)
                size += Int64(chunk.count)
            }
            try file.close()
            return FileUpload(url: url, size: size, spooled: true)
        } catch {
            try? file.close()
            BodyFile.remove(url)
            throw error
        }
    }

    /// The bytes the body holds (`nil`: none).
    var size: Int64? {
        switch self {
        case .none: nil
        case .data(let data): Int64(data.count)
        case .file(let file): file.size
        }
    }

    #if canImport(FoundationNetworking)
    /// A new stream of the whole body: for the first send, and for libcurl's resend on a new
    /// connection when a reused one died before answering, for which FoundationNetworking asks
    /// the delegate (`SessionDelegate`). Its own sources for a `Data` or a file are never rewound:
    /// the resend went on from where the dead connection had left the body, and with nothing left
    /// (the server had read it all) waited with its `Content-Length` unmet until the deadline.
    func makeStream() -> InputStream? {
        switch self {
        case .none: nil
        case .data(let data): DataBodyInputStream(data)
        case .file(let file): file.makeStream()
        }
    }

    /// `urlRequest` with the body as its stream, declared by its `Content-Length` and sent as it
    /// is, not chunked.
    ///
    /// FoundationNetworking hands libcurl a stream of unknown length, and libcurl then frames the
    /// body as chunked even beside a `Content-Length` (both went out: Docs/Linux-notes.md). A
    /// `Transfer-Encoding` field whose value is blank is libcurl's documented way to turn its own
    /// field off (`CURLOPT_HTTPHEADER`: a header with no content disables the internal one), and
    /// it is not sent. FoundationNetworking writes an empty value as `Name;`, which libcurl would
    /// send, so the value is one space. The same holds for the `Content-Type` FoundationNetworking
    /// adds to a POST with a stream and none of its own: such a POST goes out without one, as
    /// from a `Data` or a file.
    func streamedRequest(_ urlRequest: URLRequest) -> URLRequest {
        guard let size, let stream = makeStream() else { return urlRequest }
        var streamed = urlRequest
        streamed.httpBodyStream = stream
        streamed.setValue(String(size), forHTTPHeaderField: "Content-Length")
        streamed.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
        if streamed.value(forHTTPHeaderField: "Content-Type") == nil {
            streamed.setValue(" ", forHTTPHeaderField: "Content-Type")
        }
        return streamed
    }
    #endif

    /// Deletes the spooled file, if Net made one.
    func removeSpooledFile() {
        if case .file(let file) = self, file.spooled { BodyFile.remove(file.url) }
    }
}

/// A caller's file URLSession is sending, as it was when the send began. Net's stream stops at
/// the file's size and fails a file that shrank or grew (``FileBodyInputStream``), but a file
/// rewritten in place at the same size, or changed on Apple platforms (where FoundationNetworking
/// is not used and URLSession reads the file itself), shows only in its status: its modification
/// time and size. The file is checked as its pieces go out and once more when the exchange ends,
/// through a descriptor of its own: a file renamed over the path meanwhile (an atomic save) leaves
/// the one being sent as it was, and is no change.
final class SentFileCheck: Sendable {
    private let url: URL
    private let descriptor: Int32
    private let before: FileStatus.Snapshot?

    /// A check of `upload`'s file, if it is one of the caller's (Net's own spool files do not
    /// change) and can be opened.
    init?(_ upload: UploadSource) {
        guard case .file(let file) = upload, !file.spooled else { return nil }
        let url = file.url
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
