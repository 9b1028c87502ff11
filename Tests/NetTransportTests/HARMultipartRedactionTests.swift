import Foundation
import NetCore
import NetTransport
import Testing

/// A multipart form in a HAR recording: its credential fields redacted, whether the body is text
/// or, with a binary file in it, base64.
@Suite("HAR: multipart forms redacted")
struct HARMultipartRedactionTests {
    private func form(boundary: String, file: [UInt8]) -> Data {
        var body = Data()
        for (name, content) in [("username", Array("ann".utf8)), ("password", Array("pw-0123456789".utf8)),
                                ("note", Array("echoes tk-0123456789".utf8)), ("photo", file)] {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8) + Data(content) + Data("\r\n".utf8)
        }
        return body + Data("--\(boundary)--\r\n".utf8)
    }

    @Test("a form's password, and a token a field repeats, are recorded as REDACTED, as text and, beside a binary file, as base64; the file's bytes are kept", arguments: [false, true])
    func multipartForm(binary: Bool) async throws {
        let file: [UInt8] = binary ? [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] : Array("plain text".utf8)
        let stub = StubTransport()
        stub.on(.post, "/signup", respond: .status(.noContent))
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        let boundary = "NetFormBoundary42"
        _ = try await client.requestData(for: try NetworkRequest(
            url: "https://example.com/signup", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "multipart/form-data; boundary=\(boundary)"),
                      .header(key: "Authorization", value: "Bearer tk-0123456789")],
            httpBody: form(boundary: boundary, file: file)))

        let archive = try recorder.archive.encoded()
        #expect(!String(decoding: archive, as: UTF8.self).contains("pw-0123456789") && !String(decoding: archive, as: UTF8.self).contains("tk-0123456789"))
        let postData = try #require(recorder.archive.log.entries.first?.request.postData)
        let recorded = try #require(binary ? Data(base64Encoded: postData.text ?? "") : Data((postData.text ?? "").utf8))
        #expect(postData.encoding == (binary ? "base64" : nil))
        // The password by its field's name; the request's own token wherever a field repeats it.
        let expected = String(decoding: form(boundary: boundary, file: file), as: UTF8.self)
            .replacingOccurrences(of: "pw-0123456789", with: "REDACTED").replacingOccurrences(of: "tk-0123456789", with: "REDACTED")
        #expect(String(decoding: recorded, as: UTF8.self) == expected)
        #expect(recorded.range(of: Data(file)) != nil, "the file's bytes")
    }
}
