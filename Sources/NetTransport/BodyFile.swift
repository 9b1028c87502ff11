import Foundation
import NetCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations for response bodies written to disk, each failure a typed transport error.
enum BodyFile {
    /// Creates (or truncates) the file at `url`, readable by its owner only (0600: response and
    /// spooled request bodies may hold private data), and opens it for writing.
    static func create(at url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "the file cannot be created (missing directory or no permission)"))
        }
        do {
            return try FileHandle(forWritingTo: url)
        } catch {
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
        }
    }

    /// Creates `url` owner-only (0600) and empty, then writes `data`: the bytes never sit in a
    /// file others could read, as they would for a moment if the mode were set after writing.
    /// Synced and closed with their errors checked: these are small files (a cookie jar, a HAR
    /// file, a resumable download's record) renamed over the previous one next, and a rename
    /// that reached the disk before the data would leave an empty file after a crash.
    static func writePrivately(_ data: Data, to url: URL) throws {
        let file = try create(at: url)
        do {
            try write(data, toDescriptor: file.fileDescriptor, at: 0, path: url.path)
            guard fsync(file.fileDescriptor) == 0 else {
                throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: String(cString: strerror(errno))))
            }
        } catch {
            try? file.close()
            throw error
        }
        do { try file.close() } catch {
            throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
        }
    }

    /// Replaces `url` with a file holding `data`, owner-only: written beside it under a name of
    /// its own and renamed over it, so a reader sees the old file or the new one, never half.
    static func replacePrivately(_ url: URL, with data: Data) throws {
        let staging = stagingURL(beside: url, unique: UUID().uuidString)
        do {
            try writePrivately(data, to: staging)
            try replace(url, with: staging)
        } catch {
            remove(staging)
            throw error
        }
    }

    /// Writes all of `data` to the open file `fd` at `offset` (`pwrite(2)`, so the file's own
    /// position plays no part), going on after short or interrupted writes.
    static func write(_ data: Data, toDescriptor fd: Int32, at offset: Int64, path: String) throws {
        var written = 0
        while written < data.count {
            let result = data.withUnsafeBytes { bytes in
                // Not empty: `written < data.count`.
                pwrite(fd, bytes.baseAddress! + written, data.count - written, off_t(offset) + off_t(written))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                throw NetworkError.transport(.cannotWriteBody(path: path, reason: String(cString: strerror(errno))))
            }
            written += result
        }
    }

    /// Creates a file in `directory` and unlinks it at once, returning its open descriptor: a
    /// spool that vanishes with its last descriptor, so nothing can be left behind.
    static func openNameless(in directory: URL) throws -> Int32 {
        let template = directory.appendingPathComponent("net-body-XXXXXX").path
        var path = Array(template.utf8CString)
        let fd = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // the buffer is never empty: it holds the template
        guard fd >= 0 else {
            throw NetworkError.transport(.cannotWriteBody(path: template, reason: "the spool file cannot be created: \(String(cString: strerror(errno)))"))
        }
        path.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }  // nameless from here on: nothing to clean up
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not inherited by processes the app starts (mkostemp is not in Glibc's module)
        return fd
    }

    /// Moves `source` onto `destination` with `rename(2)`: atomic within one directory, replacing
    /// any file there, so readers see the old file or the new one, never a partial one.
    static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw NetworkError.transport(.cannotWriteBody(path: destination.path, reason: String(cString: strerror(errno))))
        }
    }

    /// A hidden file beside `url` to write first and rename onto it: `.NAME.unique`, or
    /// `.unique` when `url`'s own name leaves no room for that in its folder (a write to a valid
    /// name would otherwise fail for its staging name's sake).
    static func stagingURL(beside url: URL, unique: String) -> URL {
        let folder = url.deletingLastPathComponent()
        let named = ".\(url.lastPathComponent).\(unique)"
        return folder.appendingPathComponent(named.utf8.count <= longestName(in: folder) ? named : ".\(unique)")
    }

    /// The most bytes a file name may have in `folder` (`pathconf`'s `_PC_NAME_MAX`: 255 on most
    /// file systems, 143 on eCryptfs), or 255 when it cannot be asked.
    static func longestName(in folder: URL) -> Int {
        let longest = pathconf(folder.path, Int32(_PC_NAME_MAX))
        return longest > 0 ? Int(longest) : 255
    }

    /// Removes the file if it exists; a file that is already gone is not an error.
    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// Why ``readRegular(_:limit:followingLinks:)`` refused a file.
    enum ReadRefusal: Error, CustomStringConvertible {
        case cannotOpen(errno: Int32)
        case notRegularFile
        case largerThan(Int)
        case unreadable(String)

        var description: String {
            switch self {
            case .cannotOpen(let code): "cannot open it: \(String(cString: strerror(code)))"
            case .notRegularFile: "not a regular file"
            case .largerThan(let limit): "larger than \(limit) bytes"
            case .unreadable(let reason): "cannot read it: \(reason)"
            }
        }
    }

    /// A whole regular file of at most `limit` bytes. Opened without waiting (a FIFO in its place
    /// would block the open) and, unless `followingLinks`, without following a link (which could
    /// point at `/dev/zero` or a file of any size); checked on the open descriptor; at most
    /// `limit + 1` bytes read, so a file that grew since is refused too.
    static func readRegular(_ url: URL, limit: Int, followingLinks: Bool) throws(ReadRefusal) -> Data {
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { throw .cannotOpen(errno: errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        guard Int64(status.st_size) <= Int64(limit) else { throw .largerThan(limit) }
        let data: Data
        // One byte past the limit shows a file grown since `fstat` (no limit is `Int.max`).
        do { data = try handle.read(upToCount: min(limit, Int.max - 1) + 1) ?? Data() } catch { throw .unreadable("\(error)") }
        guard data.count <= limit else { throw .largerThan(limit) }
        return data
    }
}

