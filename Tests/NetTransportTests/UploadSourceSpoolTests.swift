import Foundation
import NetCore
@testable import NetTransport
import Testing

/// Where URLSessionTransport keeps a streamed request body before sending it (Docs/Linux-notes.md):
/// in memory up to 1 MiB, in a temporary file of its own past that.
@Suite("URLSession upload spool")
struct UploadSourceSpoolTests {
    /// `count` bytes of a pattern.
    private func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) }) }

    /// `body` as a stream in chunks of 100,000 bytes (the last one shorter), declaring `length`.
    private func stream(_ body: Data, declaring length: Int64?) -> NetworkBodyStream {
        let chunks = stride(from: 0, to: body.count, by: 100_000).map { body[$0..<min($0 + 100_000, body.count)] }
        return NetworkBodyStream(length: length) {
            AsyncStream { continuation in
                for chunk in chunks { continuation.yield(Data(chunk)) }
                continuation.finish()
            }
        }
    }

    @Test("a stream of 1 MiB is sent from memory; one byte more, or a declared length past 1 MiB, from a spooled file holding every byte",
          arguments: [false, true])
    func threshold(declared: Bool) async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = Int(UploadSource.inMemoryLimit)
        #expect(limit == 1 << 20)

        let atLimit = bytes(limit)
        let kept = try await UploadSource.prepare(.stream(stream(atLimit, declaring: declared ? Int64(limit) : nil)), spoolDirectory: directory)
        guard case .data(let data) = kept else { Issue.record("1 MiB was not kept in memory: \(kept)"); return }
        #expect(data == atLimit)
        #expect(try TransportTest.contents(of: directory) == [])

        let past = bytes(limit + 1)
        let spooled = try await UploadSource.prepare(.stream(stream(past, declaring: declared ? Int64(limit + 1) : nil)), spoolDirectory: directory)
        guard case .file(let file) = spooled else { Issue.record("1 MiB + 1 was not spooled: \(spooled)"); return }
        #expect(file.spooled && file.size == Int64(limit + 1))
        #expect(file.url.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(try Data(contentsOf: file.url) == past)
        spooled.removeSpooledFile()
        #expect(try TransportTest.contents(of: directory) == [])
    }
}
