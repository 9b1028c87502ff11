#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import NetCore
@testable import NetTransport
import Testing

/// The streams URLSessionTransport hands FoundationNetworking, read as it reads them: `open()`,
/// then `hasBytesAvailable` and `read(_:maxLength:)` until the first says no or the second fails.
@Suite("URLSessionTransport's body streams")
struct BodyInputStreamTests {
    /// Reads `stream` as FoundationNetworking's `_BodyStreamSource` does, in pieces of `piece`
    /// bytes, calling `between` after each; returns the bytes and whether a read failed.
    static func drain(_ stream: InputStream, piece: Int = 4_096, between: () -> Void = {}) -> (bytes: [UInt8], failed: Bool) {
        stream.open()
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: piece)
        while stream.hasBytesAvailable {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: piece) }
            if count < 0 { return (bytes, true) }
            if count == 0 { break }
            bytes += buffer[..<count]
            between()
        }
        return (bytes, false)
    }

    static func file(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-body-stream-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("a file is read whole, in pieces, and then ends")
    func fileWhole() throws {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let url = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let upload = FileUpload(url: url, size: Int64(bytes.count), spooled: false)
        let read = Self.drain(upload.makeStream())
        #expect(read.bytes == bytes && !read.failed)
        #expect(upload.recordedFailure == nil)
    }

    @Test("a file that grew before its last piece fails that piece: the body never goes out longer than declared")
    func fileGrew() throws {
        let bytes = [UInt8](repeating: 1, count: 10_000)
        let url = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let upload = FileUpload(url: url, size: Int64(bytes.count), spooled: false)
        var grown = false
        let read = Self.drain(upload.makeStream()) {
            guard !grown, let handle = try? FileHandle(forWritingTo: url) else { return }
            grown = true
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data([9, 9, 9]))
            try? handle.close()
        }
        #expect(grown && read.failed)
        #expect(read.bytes.count < bytes.count)
        guard case .request(.unreadableBodyFile(let path, let reason))? = upload.recordedFailure else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: upload.recordedFailure))")
            return
        }
        #expect(path == url.path && reason.contains("grew past"))
    }

    @Test("a file that cannot be opened fails the first read, not an empty body taken for the end")
    func fileMissing() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-body-stream-missing-\(UUID().uuidString)")
        let upload = FileUpload(url: url, size: 100, spooled: false)
        let stream = upload.makeStream()
        stream.open()
        #expect(stream.hasBytesAvailable, "FoundationNetworking ends the body when this is false")
        var byte: UInt8 = 0
        #expect(stream.read(&byte, maxLength: 1) == -1)
        guard case .request(.unreadableBodyFile(let path, _))? = upload.recordedFailure else {
            Issue.record("expected unreadableBodyFile, got \(String(describing: upload.recordedFailure))")
            return
        }
        #expect(path == url.path)
    }

    @Test("a body in memory is read whole from a slice that does not start at 0, and a second stream starts over")
    func dataSlice() {
        let whole = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        let slice = whole[1_000..<40_000]
        let upload = UploadSource.data(slice)
        for _ in 0..<2 {
            guard let stream = upload.makeStream() else {
                Issue.record("no stream for a body in memory")
                return
            }
            let read = Self.drain(stream, piece: 3_000)
            #expect(read.bytes == Array(slice) && !read.failed)
        }
        #expect(UploadSource.none.makeStream() == nil)
    }
}
#endif
