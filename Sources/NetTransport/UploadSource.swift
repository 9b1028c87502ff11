import Foundation
import NetCore

/// A request body in the form URLSession can send: in memory or from a file.
enum UploadSource: Sendable {
    case none
    case data(Data)
    /// A file; `spooled` files were written by Net from a stream and are Net's to delete.
    case file(URL, spooled: Bool)

    /// Bodies up to this size are sent from memory, even when they come from a file or a stream.
    /// FoundationNetworking reads a file body ahead on a queue of its own and, when that read
    /// lands after the task was stopped (cancelled, timed out, failed), resumes the removed
    /// transfer with a `try!` that stops the process (Docs/Linux-notes.md); a body in memory is
    /// never read ahead. 1 MiB: most API uploads, at a bounded cost per call in flight.
    static let inMemoryLimit: Int64 = 1 << 20

    /// Reads the body's form: files are checked now (and read, when small), streams are read
    /// into memory while small and written to a temporary file past that.
    static func prepare(_ body: NetworkRequestBody, spoolDirectory: URL) async throws -> UploadSource {
        switch body {
        case .none: return .none
        case .data(let data): return data.isEmpty ? .none : .data(data)
        case .file(let url):
            let size = try body.contentLength() ?? 0
            guard size <= inMemoryLimit else { return .file(url, spooled: false) }
            let data = try readWhole(url, size: size)
            return data.isEmpty ? .none : .data(data)
        case .stream(let stream):
            return try await collectOrSpool(stream, into: spoolDirectory)
        }
    }

    /// The file's `size` bytes, read now; a file that is no longer that size is an error.
    private static func readWhole(_ url: URL, size: Int64) throws -> Data {
        let reader = try FileChunkReader(url: url, expectedSize: size)
        var data = Data(count: Int(size))
        var filled = 0
        try data.withUnsafeMutableBytes { buffer in
            while let count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
                filled += count
            }
        }
        return data
    }

    /// The stream's chunks in memory while they come to at most ``inMemoryLimit`` bytes, else
    /// every chunk written to a new file, which is removed if anything fails.
    private static func collectOrSpool(_ stream: NetworkBodyStream, into directory: URL) async throws -> UploadSource {
        var reader = stream.makeReader()
        if let length = stream.length, length > inMemoryLimit {
            return .file(try await spool(first: Data(), rest: &reader, into: directory), spooled: true)  // large by its own word
        }
        var collected = Data()
        while let chunk = try await reader.next() {
            try Task.checkCancellation()
            collected.append(chunk)
            if Int64(collected.count) > inMemoryLimit {
                return .file(try await spool(first: collected, rest: &reader, into: directory), spooled: true)
            }
        }
        return collected.isEmpty ? .none : .data(collected)
    }

    /// Writes `first`, then every remaining chunk of `rest`, to a new file; the file is removed if
    /// anything fails.
    private static func spool(first: Data, rest reader: inout NetworkBodyStream.Reader, into directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("net-upload-\(UUID().uuidString)")
        let file = try BodyFile.create(at: url)
        do {
            var writer = FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0)
            try writer.write(first)
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
