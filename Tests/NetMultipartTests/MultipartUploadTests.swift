import Foundation
import NetCore
import NetMultipart
import NetTestSupport
import NetTransport
import Testing

@Suite("NetMultipart: uploading forms through NetworkSession to a real server")
struct MultipartUploadTests {
    @Test("a form with fields, JSON, an in-memory file and an 8 MiB file on disk arrives part for part")
    func upload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-multipart-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Seeded: SystemRandomNumberGenerator makes a getrandom call per word, a second of CPU here.
        var generator = SeededGenerator(seed: 8)
        var big = Data(count: 8 << 20)
        big.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        let file = directory.appendingPathComponent("video \"clip\".mp4")
        try big.write(to: file)
        let small = Data("\r\n--not-a-boundary\r\n".utf8)

        struct Meta: Codable, Sendable { var tags: [String] }
        let request = try NetworkRequest(
            url: try await MultipartUploadServer.shared.baseURL().appendingPathComponent("form"),
            multipartForm: [
                NetworkMultipartFormDataRequest(name: "título", value: "Ran"),
                NetworkMultipartFormJsonRequest(name: "meta", value: Meta(tags: ["a", "b"])),
                NetworkMultipartFormFileRequest(name: "note", filename: "n.txt", value: small),
                NetworkMultipartFormFileRequest(name: "video", fileURL: file),
            ])
        let client = NetworkClient(transport: URLSessionTransport(), timeout: TestTiming.scaled(.seconds(60)))
        let response = try await client.requestUpload(for: request).validate()
        let parts = try JSONDecoder().decode([MultipartUploadServer.ReceivedPart].self, from: response.data)
        #expect(parts.count == 4)
        #expect(parts.map(\.headers) == [
            [["Content-Disposition", "form-data; name=\"título\""]],
            [["Content-Disposition", "form-data; name=\"meta\""], ["Content-Type", "application/json"]],
            [["Content-Disposition", "form-data; name=\"note\"; filename=\"n.txt\""], ["Content-Type", "text/plain"]],
            [["Content-Disposition", "form-data; name=\"video\"; filename=\"video %22clip%22.mp4\""], ["Content-Type", "video/mp4"]],
        ])
        #expect(parts.map(\.length) == [3, 18, small.count, big.count])
        #expect(parts[2].checksum == FNV1a.hash(small))
        #expect(parts[3].checksum == FNV1a.hash(big))
        guard case .stream(let length) = response.uploadType else { Issue.record("\(response.uploadType)"); return }
        #expect(length == (try request.body.contentLength()))
    }
}
