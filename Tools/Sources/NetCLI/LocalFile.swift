import Foundation

/// Reads a small local file `net` was given (a `--session` file, a `--cacert` bundle) the way the
/// library reads its own: opened without waiting (a FIFO in its place would block the open),
/// checked to be a regular file on the open descriptor, and at most `limit` bytes, so
/// `/dev/zero` or a pipe is a usage error, not a hang or memory without bound. Where a pipe is
/// allowed (a certificate or key from `<(vault read …)`), it is opened and read waiting for its
/// writer, as `cat` would, up to the same limit.
enum LocalFile {
    /// The largest file `read` takes unless told otherwise: 16 MiB, far past any certificate
    /// bundle or key.
    static let limit = 16 << 20

    /// The file's bytes, or `nil` when there is no file at `path`. With `allowingPipes`, a pipe
    /// (`--key <(vault read …)`, which keeps a key off the disk) is read to its end too, up to
    /// the same limit.
    static func read(_ path: String, option: String, allowingPipes: Bool = false, limit: Int = LocalFile.limit) throws -> Data? {
        // Waiting only for a pipe, where one is allowed: opened once (a FIFO's writer may write
        // and close before a second, waiting open, which would then wait for ever); anything
        // else without waiting and without becoming a controlling terminal (a serial line's open
        // can wait for its carrier), its type checked on the descriptor below.
        var named = stat()
        let waits = allowingPipes && stat(path, &named) == 0 && named.st_mode & S_IFMT == S_IFIFO
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (waits ? 0 : O_NONBLOCK))
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw UsageError("\(option): cannot open \(path): \(String(cString: strerror(code)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            throw UsageError("\(option): cannot read \(path): \(String(cString: strerror(code)))")
        }
        let isPipe = status.st_mode & S_IFMT == S_IFIFO
        guard status.st_mode & S_IFMT == S_IFREG || (allowingPipes && isPipe) else {
            throw UsageError("\(option): \(path) is not a regular file\(allowingPipes ? " or a pipe" : "")")
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
