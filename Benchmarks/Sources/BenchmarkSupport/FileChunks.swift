import Foundation
import NIOCore

/// A file read for raw AsyncHTTPClient, which has no file body of its own, the way Net's transport
/// reads one: 256 KiB at a time with `read(2)`, straight into the buffer that is sent.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    static let pieceSize = 256 * 1024
    let url: URL

    /// The open file, closed when the last iterator lets it go.
    final class Descriptor: Sendable {
        let number: Int32
        init(path: String) { number = open(path, O_RDONLY | O_CLOEXEC) }
        deinit { if number >= 0 { close(number) } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let file: Descriptor

        mutating func next() async throws -> ByteBuffer? {
            guard file.number >= 0 else { throw POSIXError(.ENOENT) }
            var buffer = ByteBuffer()
            buffer.reserveCapacity(FileChunks.pieceSize)
            var failed = false
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FileChunks.pieceSize) { room in
                let count = read(file.number, room.baseAddress, FileChunks.pieceSize)
                failed = count < 0
                return Swift.max(count, 0)
            }
            if failed { throw POSIXError(.EIO) }
            return count > 0 ? buffer : nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(file: Descriptor(path: url.path)) }
}
