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
import NetCore

/// Reads a file part piece by piece with `read(2)`, holding one piece at a time, and insists the
/// file still has the size it had when the form was built: a file that shrinks or grows while it
/// is sent is an error, never a truncated upload that looks like success.
final class FileChunkReader {
    private let descriptor: Int32
    private let path: String
    private let expectedSize: Int64
    private var bytesRead: Int64 = 0

    init(url: URL, expectedSize: Int64) throws {
        path = url.path
        self.expectedSize = expectedSize
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
    }

    deinit { close(descriptor) }

    /// Opens and closes the file, so an unreadable file fails when the form is built.
    static func checkReadable(_ url: URL) throws {
        _ = try FileChunkReader(url: url, expectedSize: 0)
    }

    /// Up to `maximum` more bytes, or `nil` once exactly `expectedSize` bytes were read.
    func read(maximum: Int) throws -> Data? {
        if bytesRead == expectedSize {
            var probe: UInt8 = 0
            guard readRetrying(&probe, 1) == 0 else { throw changed("grew past") }
            return nil
        }
        let wanted = Int(min(Int64(maximum), expectedSize - bytesRead))
        var chunk = Data(count: wanted)
        let count = chunk.withUnsafeMutableBytes { buffer in
            readRetrying(buffer.baseAddress, wanted)
        }
        guard count >= 0 else {
            throw NetworkError.request(.unreadableBodyFile(path: path, reason: String(cString: strerror(errno))))
        }
        guard count > 0 else { throw changed("shrank below") }
        if count < wanted { chunk.removeSubrange(count..<wanted) }
        bytesRead += Int64(count)
        return chunk
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
