import Foundation

/// Reads a small local file `net` was given (a `--session` file, a `--cacert` bundle) the way the
/// library reads its own: opened without waiting (a FIFO in its place would block the open),
/// checked to be a regular file on the open descriptor, and at most `limit` bytes, so
/// `/dev/zero` or a pipe is a usage error, not a hang or memory without bound.
enum LocalFile {
    /// The largest file `read` takes: 16 MiB, far past any session file or certificate bundle.
    static let limit = 16 << 20

    /// The file's bytes, or `nil` when there is no file at `path`. With `allowingPipes`, a pipe
    /// (`--key <(vault read …)`, which keeps a key off the disk) is read to its end too, up to
    /// the same limit.
    static func read(_ path: String, option: String, allowingPipes: Bool = false) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw UsageError("\(option): cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw UsageError("\(option): cannot read \(path): \(String(cString: strerror(errno)))") }
        let isPipe = status.st_mode & S_IFMT == S_IFIFO
        guard status.st_mode & S_IFMT == S_IFREG || (allowingPipes && isPipe) else {
            throw UsageError("\(option): \(path) is not a regular file\(allowingPipes ? " or a pipe" : "")")
        }
        if isPipe {
            // Opened again, waiting for its writer as `cat` would: read without one, a named
            // pipe ends at once, empty.
            let blocking = open(path, O_RDONLY | O_CLOEXEC)
            guard blocking >= 0 else { throw UsageError("\(option): cannot open \(path): \(String(cString: strerror(errno)))") }
            handle = FileHandle(fileDescriptor: blocking, closeOnDealloc: true)
        }
        guard Int64(status.st_size) <= Int64(limit) else {
            throw UsageError("\(option): \(path) is larger than \(limit) bytes")
        }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else { throw UsageError("\(option): \(path) is larger than \(limit) bytes") }
            return data
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("\(option): cannot read \(path): \(error)")
        }
    }
}
