import Foundation
import NetCore
import NetTransport
import Testing

/// A download's destination may have the longest name a file can have (255 bytes): the hidden
/// files it goes through first are named from it, and must not be what fails, once the server
/// has answered.
@Suite("Downloads to the longest file names")
struct LongFileNameTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-long-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A server whose `/file` answers `the body`.
    static func stub() -> StubTransport {
        let stub = StubTransport()
        stub.on(.get, "/file", respond: .text("the body"))
        return stub
    }

    @Test("a download to a 255-byte name lands under it, through a staging file whose name fits")
    func longestName() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = Self.stub()
        let destination = folder.appendingPathComponent(String(repeating: "é", count: 127) + "x")  // 255 bytes of UTF-8
        let response = try await NetworkClient(transport: stub).requestDownload(for: "https://example.test/file", to: destination)
        #expect(response.url == destination)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "the body")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [destination.lastPathComponent])
    }

    @Test("a HAR archive is written to the longest file name, through a staging file whose name fits")
    func privateFilesToLongestName() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = Self.stub()
        let recorder = HARRecorder()
        _ = try await NetworkClient(transport: recorder.recording(stub)).requestData(for: "https://example.test/file")
        let archive = folder.appendingPathComponent(String(repeating: "h", count: 255))
        try recorder.write(to: archive)
        #expect(try HARArchive(data: Data(contentsOf: archive)).log.entries.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [archive.lastPathComponent])
    }

    @Test("a resumable download whose FILE.part.json cannot have a name fails with cannotWriteBody before anything is sent")
    func resumableNameTooLong() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stub = Self.stub()
        let destination = folder.appendingPathComponent(String(repeating: "n", count: 250))
        let error = await #expect(throws: NetworkError.self) {
            _ = try await NetworkClient(transport: stub).requestResumableDownload(for: "https://example.test/file", to: destination)
        }
        guard case .transport(.cannotWriteBody(let path, _))? = error else {
            Issue.record("expected cannotWriteBody, got \(String(describing: error))")
            return
        }
        #expect(path == destination.path + ".part.json")
        #expect(stub.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
