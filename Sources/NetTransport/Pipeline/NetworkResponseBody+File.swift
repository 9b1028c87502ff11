import Foundation
import NetCore

extension NetworkResponseBody {
    /// Writes the body to the open file `file` from `offset` on and returns the offset its end
    /// reached; `progress` is told that offset after each chunk. A file that got less than the
    /// body's `Content-Length` ends with the same error as reading the body would.
    ///
    /// A body straight from URLSession (a ``BodyChannel``) is written on the thread its chunks
    /// arrive on, once what waits for the reader has been written, so `progress` may run there
    /// (it must return at once). Every other body is read chunk by chunk and written here.
    func write(to file: FileHandle, from offset: Int64, path: String, progress: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        var writer = FileWriter(fd: file.fileDescriptor, path: path, offset: offset, progress: progress)
        guard case .channel(let channel) = storage else {
            do {
                for try await chunk in self { try writer.write(chunk) }
            } catch {
                lease?.end(.failed(error))  // a write that failed ends the body here (the iterator's own end comes first)
                throw error
            }
            return writer.offset
        }
        // What the iterator does around `BodyChannel.next()`: the length check at the end, and
        // the lease ended however the body ends.
        do {
            let end = try await channel.drain(into: writer)
            try framing?.checkEnd(after: end - offset)
            lease?.end(.finished(bytes: end - offset))
            return end
        } catch {
            lease?.end(.failed(error))
            throw error
        }
    }
}
