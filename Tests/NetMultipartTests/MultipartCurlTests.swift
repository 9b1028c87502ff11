import Foundation
import NetCore
import NetMultipart
import Testing

/// `curlCommand(multipartForm:)`: curl's form options for what curl can say exactly, `nil` otherwise.
/// (The CLI tests run these commands with the real curl and compare the parts a server parsed.)
@Suite("Multipart requests as curl -F commands")
struct MultipartCurlTests {
    let file = URL(fileURLWithPath: #filePath)

    @Test("Text and file parts become --form-string and -F, quoted for curl and for the shell")
    func arguments() throws {
        let parts: [any NetworkMultipartFormDataConvertible] = [
            NetworkMultipartFormDataRequest(name: "title", value: "@not a file; \"quoted\""),
            NetworkMultipartFormFileRequest(name: "doc", fileURL: file, filename: "a \"b\".swift", contentType: "text/x-swift"),
        ]
        let request = try NetworkRequest(
            url: "https://api.example.com/upload", headers: [.header(key: "Authorization", value: "Bearer secret")], multipartForm: parts)
        let command = try #require(try request.curlCommand(multipartForm: parts))
        #expect(command.arguments == [
            "-H", "Authorization: Bearer REDACTED",
            "--form-string", "title=@not a file; \"quoted\"",
            "-F", "doc=@\"\(file.path)\";filename=\"a \\\"b\\\".swift\";type=text/x-swift",
            "https://api.example.com/upload",
        ])
        #expect(command.standardInput == nil && command.note == nil)
    }

    @Test("A field named as a credential shows REDACTED, and the request's credential values are scrubbed from the others, unless asked")
    func redactedFields() throws {
        let parts: [any NetworkMultipartFormDataConvertible] = [
            NetworkMultipartFormDataRequest(name: "user", value: "ann"),
            NetworkMultipartFormDataRequest(name: "password", value: "pw-0123456789"),
            NetworkMultipartFormDataRequest(name: "note", value: "token tk-0123456789 again"),
            NetworkMultipartFormDataRequest(name: "user[client_secret]", value: "cs-0123456789"),
            NetworkMultipartFormDataRequest(name: "meta", value: Data(#"{"access_token":"at-0123456789","n":1}"#.utf8), contentType: "application/json"),
        ]
        let request = try NetworkRequest(
            url: "https://api.example.com/login", headers: [.header(key: "Authorization", value: "Bearer tk-0123456789")], multipartForm: parts)
        let command = try #require(try request.curlCommand(multipartForm: parts))
        #expect(command.arguments.contains("password=REDACTED") && command.arguments.contains("note=token REDACTED again"), "\(command.arguments)")
        #expect(command.arguments.contains("user=ann"))
        // A nested name's last part, and a JSON field's keys, as a form given as `Data` is redacted.
        #expect(command.arguments.contains("user[client_secret]=REDACTED"), "\(command.arguments)")
        #expect(command.arguments.contains(#"meta="{\"access_token\":\"REDACTED\",\"n\":1}";type=application/json"#), "\(command.arguments)")
        let shown = try #require(try request.curlCommand(multipartForm: parts, options: .unredacted))
        #expect(shown.arguments.contains("password=pw-0123456789") && shown.arguments.contains("note=token tk-0123456789 again"))
    }

    @Test("PUT keeps its method; POST needs no -X beside -F")
    func method() throws {
        let parts: [any NetworkMultipartFormDataConvertible] = [NetworkMultipartFormDataRequest(name: "a", value: "1")]
        let put = try NetworkRequest(url: "https://h/x", httpMethod: .put, multipartForm: parts)
        #expect(try put.curlCommand(multipartForm: parts)?.arguments.prefix(2) == ["-X", "PUT"])
        let post = try NetworkRequest(url: "https://h/x", multipartForm: parts)
        #expect(try post.curlCommand(multipartForm: parts)?.arguments.contains("-X") == false)
    }

    @Test("What curl's form syntax cannot say exactly gives nil", arguments: [
        MultipartPart(name: "a=b", body: .data(Data("x".utf8))),
        MultipartPart(name: "q\"uote", body: .data(Data("x".utf8))),
        MultipartPart(name: "bin", body: .data(Data([0, 1, 2]))),
        MultipartPart(name: "named", filename: "in-memory.txt", body: .data(Data("x".utf8))),
        MultipartPart(name: "h", additionalHeaders: [.header(key: "X-A", value: "1")], body: .data(Data("x".utf8))),
        MultipartPart(name: "p", additionalContentDispositionParameters: [ContentDispositionParameter(name: "lang", value: "es")], body: .data(Data("x".utf8))),
        MultipartPart(name: "t", contentType: "text/plain; charset=utf-8", body: .data(Data("x".utf8))),
    ])
    func inexpressible(_ part: MultipartPart) throws {
        struct Fixed: NetworkMultipartFormDataConvertible {
            let part: MultipartPart
            func multipartPart() throws -> MultipartPart { part }
        }
        let request = try NetworkRequest(url: "https://h/x")
        #expect(try request.curlCommand(multipartForm: [Fixed(part: part)]) == nil)
    }
}
