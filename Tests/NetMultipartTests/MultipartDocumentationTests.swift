import Foundation
import NetCore
import NetMultipart
import NetTransport
import Testing

// The examples of Docs/Multipart.md, compiled as written and run against a StubTransport.

struct CSVPart: NetworkMultipartFormDataConvertible {
    let name: String
    let rows: [[String]]

    func multipartPart() throws -> MultipartPart {
        let text = rows.map { $0.joined(separator: ",") }.joined(separator: "\r\n")
        return MultipartPart(name: name, filename: "\(name).csv", contentType: "text/csv", body: .data(Data(text.utf8)))
    }
}

struct Meta: Codable, Sendable {
    var year: Int
    var tags: [String]
}

@Suite("Docs/Multipart.md examples")
struct MultipartDocumentationTests {
    @Test("the seed request, the part kinds and a custom part all parse back")
    func examples() async throws {
        let stub = StubTransport()
        stub.on(.post, "*", respond: .text("stored"))
        let networkSession: any NetworkSession = NetworkClient(transport: stub)
        let image = Data([0x89, 0x50])

        let networkRequest = try NetworkRequest(
            url: "https://endpoint.com/upload/image",
            httpMethod: .post,
            headers: nil,
            query: nil,
            multipartForm: NetworkMultipartFormFileRequest(name: "image", filename: "profile.png", value: image, contentType: "application/png"))

        let result = try await networkSession.requestUpload(for: networkRequest)
        #expect(result.data == Data("stored".utf8))
        let contentType = try #require(networkRequest.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary=NetFormBoundary"))
        let uploaded = try parseWithMultipartKit(try #require(stub.requests.first).body,
                                                 boundary: String(contentType.dropFirst("multipart/form-data; boundary=".count)))
        #expect(uploaded.first?.body == image)
        #expect(uploaded.first?.header("Content-Type") == "application/png")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-multipart-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let videoURL = directory.appendingPathComponent("clip.mp4")
        try Data(count: 1_000).write(to: videoURL)
        let jpegData = Data([0xff, 0xd8])

        let form: [any NetworkMultipartFormDataConvertible] = [
            // A plain field, text or bytes.
            NetworkMultipartFormDataRequest(name: "title", value: "Ran"),
            // JSON, sent with Content-Type: application/json (keys sorted by default).
            NetworkMultipartFormJsonRequest(name: "meta", value: Meta(year: 1985, tags: ["drama"])),
            // A file from memory; the type comes from the extension unless given.
            NetworkMultipartFormFileRequest(name: "poster", filename: "poster.jpg", value: jpegData),
            // A file from disk, streamed; filename defaults to the file's name.
            NetworkMultipartFormFileRequest(name: "video", fileURL: videoURL),
            // Extra Content-Disposition parameters and part headers.
            NetworkMultipartFormDataRequest(
                name: "notes", value: "subtitled",
                additionalContentDispositionParameters: [ContentDispositionParameter(name: "lang", value: "es")],
                additionalHeaders: [.header(key: "X-Trace", value: "42")]),
        ]
        let request = try NetworkRequest(url: "https://api.example.com/films", multipartForm: form)

        #expect(request.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(try (request.body.contentLength() ?? 0) > 1_000)
        // The page's custom part joins the same form.
        let withCustomPart = try NetworkRequest(
            url: "https://api.example.com/films", multipartForm: form + [CSVPart(name: "scores", rows: [["a", "1"], ["b", "2"]])])
        _ = try await networkSession.requestUpload(for: withCustomPart)

        let sent = try #require(stub.requests.last)
        let boundary = try #require(sent.request.headers["Content-Type"]?.split(separator: "=").last.map(String.init))
        let parts = try parseWithMultipartKit(sent.body, boundary: boundary)
        #expect(parts.map { $0.header("Content-Type") } == [nil, "application/json", "image/jpeg", "video/mp4", nil, "text/csv"])
        #expect(parts[1].body == Data(#"{"tags":["drama"],"year":1985}"#.utf8))
        #expect(parts[3].body.count == 1_000)
        #expect(parts[4].header("Content-Disposition") == "form-data; name=\"notes\"; lang=\"es\"")
        #expect(parts[5].body == Data("a,1\r\nb,2".utf8))
    }
}
