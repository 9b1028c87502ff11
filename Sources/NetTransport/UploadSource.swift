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
