import Foundation
import NetCore

/// File operations for response bodies written to disk, each failure a typed transport error.
enum BodyFile {
    /// Creates (or truncates) the file at `url` and opens it for writing.
    static func create(at url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "the file cannot be created (missing directory or no permission)"))
        }
        do {
            return try FileHandle(forWritingTo: url)
        } catch {
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
        }
    }

    /// Appends `data` to `file`.
    static func write(_ data: Data, to file: FileHandle, path: String) throws {
        do {
            try file.write(contentsOf: data)
        } catch {
            throw NetworkError.transport(.cannotWriteBody(path: path, reason: "\(error)"))
        }
    }

    /// Removes the file if it exists; a file that is already gone is not an error.
    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }
}
