#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a request body's file piece by piece with `read(2)`, holding one piece at a time, and
/// insists the file still has the size it was opened with (when the form was built, or when the
/// send started): a file that shrinks or grows while it is sent is an error, never a truncated
/// upload that looks like success.
///
/// Shared by the multipart encoder and AsyncHTTPClientTransport's uploads, which both read
/// straight into the buffer they send (``read(into:)``) rather than through a `Data` copied once
/// more.
package final class FileChunkReader {
    private let descriptor: Int32
    private let path: String
    private let expectedSize: Int64
    private var bytesRead: Int64 = 0

    package init(url: URL, expectedSize: Int64) throws {
        path = url.path
        self.expectedSize = expectedSize
        // Without waiting: a FIFO put in the file's place since it was checked would block the
        // open (and the thread) until a writer came; its read then fails instead.
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
    }

    deinit { close(descriptor) }

    /// Opens and closes the file, so an unreadable file fails when the form is built.
    package static func checkReadable(_ url: URL) throws {
        _ = try FileChunkReader(url: url, expectedSize: 0)
    }

    /// Reads up to `buffer.count` more bytes into `buffer` and returns how many (at least one),
    /// or `nil` once exactly `expectedSize` bytes were read.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        guard bytesRead < expectedSize else {
            try readEnd()
            return nil
        }
        let wanted = Int(min(Int64(buffer.count), expectedSize - bytesRead))
        let count = readRetrying(buffer.baseAddress, wanted)
        guard count >= 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
        guard count > 0 else { throw changed("shrank below") }
        bytesRead += Int64(count)
        return count
    }

    /// Checks that the file ends where it should: not grown, and still readable.
    private func readEnd() throws {
        var probe: UInt8 = 0
        let count = readRetrying(&probe, 1)
        guard count >= 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
        guard count == 0 else { throw changed("grew past") }
    }

    private func readRetrying(_ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        while true {
            #if canImport(Glibc)
            let result = Glibc.read(descriptor, buffer, count)
            #else
            let result = Darwin.read(descriptor, buffer, count)
            #endif
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    private func changed(_ how: String) -> NetworkError {
        .request(.unreadableBodyFile(path: path, reason: "the file \(how) its size of \(expectedSize) bytes while being sent"))
    }
}
