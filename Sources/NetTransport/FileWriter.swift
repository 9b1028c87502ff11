import Foundation

/// Writes a body into an open file from a given offset on (`pwrite(2)`, so the file's own
/// position plays no part), telling `progress` the offset reached after each write: the one
/// writer of response bodies to files, whichever thread writes.
struct FileWriter: Sendable {
    let fd: Int32
    /// The file's path, for errors.
    let path: String
    /// Where the next write goes: the end of what has been written.
    private(set) var offset: Int64
    let progress: (@Sendable (Int64) -> Void)?

    init(fd: Int32, path: String, offset: Int64, progress: (@Sendable (Int64) -> Void)? = nil) {
        self.fd = fd
        self.path = path
        self.offset = offset
        self.progress = progress
    }

    /// Writes all of `data` at ``offset`` and moves past it; a failure is
    /// ``NetworkError/TransportFailure/cannotWriteBody(path:reason:)`` and moves nothing.
    mutating func write(_ data: Data) throws {
        try writeUnreported(data)
        progress?(offset)
    }

    /// Writes as ``write(_:)`` does without telling `progress`: for a writer inside a lock, which
    /// reports once it is out of it (a progress handler may cancel the call, and the cancel takes
    /// that lock).
    mutating func writeUnreported(_ data: Data) throws {
        try BodyFile.write(data, toDescriptor: fd, at: offset, path: path)
        offset += Int64(data.count)
    }
}
