import Foundation
import NetCore
import Testing

@Suite("Responses: validation and decoding")
struct ResponseTests {
    struct Film: Decodable, Equatable {
        let title: String
        let year: Int
    }

    struct APIError: Decodable, Error, Equatable {
        let code: String
        let message: String
    }

    private func response(
        _ status: HTTPCode, body: String = "", contentType: String? = "application/json", method: NetworkHttpMethod = .get
    ) throws -> NetworkDataResponse {
        let request = try NetworkRequest(url: "https://api.test/films", httpMethod: method)
        var headers = NetworkHeaders()
        if let contentType { try headers.add(name: "Content-Type", value: contentType) }
        return NetworkDataResponse(
            data: Data(body.utf8), response: NetworkResponseHead(statusCode: status, headers: headers, url: request.url),
            originalRequest: request)
    }

    @Test("validate() passes 2xx and chains; other codes throw carrying the response")
    func statusValidation() throws {
        let ok = try response(200, body: #"{"title":"Alien","year":1979}"#)
        #expect(try ok.validate().jsonDecode(Film.self) == Film(title: "Alien", year: 1979))
        do {
            _ = try response(404, body: "missing").validate()
            Issue.record("404 must not validate")
        } catch NetworkError.responseData(.invalidStatusCode(let failed, let code)) {
            #expect(code == 404)
            #expect(failed.data == Data("missing".utf8))
        }
        #expect(try response(304).validate(correctRange: .success.union([304])).statusCode == 304)
        #expect(try response(299).validate(correctRange: 200..<300).statusCode == 299)
        #expect(throws: NetworkError.self) { try response(300).validate(correctRange: 200...299) }
    }

    @Test("A server error model is decoded and thrown when validation fails")
    func serverErrorModel() throws {
        let failing = try response(422, body: #"{"code":"E42","message":"title is required"}"#)
        #expect(throws: APIError(code: "E42", message: "title is required")) {
            try failing.validate(errorModel: APIError.self)
        }
        // A body that is not the model falls back to the status error.
        #expect(throws: NetworkError.self) { try response(500, body: "<html>oops</html>").validate(errorModel: APIError.self) }
        #expect(try response(200, body: "{}").validate(errorModel: APIError.self).statusCode == 200)
    }

    @Test("Content-Type validation matches types, wildcards and ignores parameters")
    func contentType() throws {
        let json = try response(200, body: "{}", contentType: "Application/JSON; charset=utf-8")
        #expect(try json.validateContentType(["application/json"]).statusCode == 200)
        #expect(try json.validateContentType(["text/plain", "application/*"]).statusCode == 200)
        #expect(try json.validateContentType(["*/*"]).statusCode == 200)
        do {
            _ = try json.validateContentType(["text/*"])
            Issue.record("application/json is not text/*")
        } catch NetworkError.responseData(.invalidContentType(_, let expected, let actual)) {
            #expect(expected == ["text/*"])
            #expect(actual == "Application/JSON; charset=utf-8")
        }
        #expect(throws: NetworkError.self) { try response(200, body: "{}", contentType: nil).validateContentType(["application/json"]) }
        #expect(try response(200, body: "", contentType: nil).validateContentType(["application/json"]).statusCode == 200)
        #expect(try response(204, body: "", contentType: nil).validateContentType(["application/json"]).statusCode == 204)
    }

    @Test("Empty bodies decode as nil for optionals and as NetworkEmpty; 204/205/HEAD have no body")
    func emptyBodies() throws {
        #expect(try response(200).jsonDecode(Film?.self) == nil)
        #expect(try response(204).jsonDecode(Film?.self) == nil)
        #expect(try response(204).jsonDecode(NetworkEmpty.self) == NetworkEmpty())
        #expect(try response(205, body: "ignored").jsonDecode(Film?.self) == nil)
        #expect(try response(200, body: "{}", method: .head).jsonDecode(NetworkEmpty.self) == NetworkEmpty())
        #expect(try response(200, body: "null").jsonDecode(Film?.self) == nil)
        #expect(try response(200, body: #"{"title":"Up","year":2009}"#).jsonDecode(Film?.self) == Film(title: "Up", year: 2009))
        do {
            _ = try response(204).jsonDecode(Film.self)
            Issue.record("a 204 cannot be a Film")
        } catch NetworkError.responseData(.decodeError(_, let failure)) {
            #expect(failure.message.contains("204"))
            #expect(failure.message.contains("Optional or NetworkEmpty"))
        }
    }

    @Test("A failed decode names the type, the coding path and the start of the body")
    func decodeFailureDetails() throws {
        let body = #"{"results":[{"title":"Alien","year":1979},{"title":"Up","year":"2009"}]}"#
        struct Page: Decodable { let results: [Film] }
        do {
            _ = try response(200, body: body).jsonDecode(Page.self)
            Issue.record("a string year must not decode")
        } catch NetworkError.responseData(.decodeError(_, let failure)) {
            #expect(failure.typeName.hasSuffix("Page"))
            #expect(failure.codingPath == "results[1].year")
            #expect(failure.bodyPrefix == body)
            #expect(failure.bodyByteCount == body.utf8.count)
            #expect(failure.description.contains("results[1].year"))
        }
        let long = String(repeating: "x", count: 1000)
        do {
            _ = try response(200, body: long).jsonDecode(Film.self)
            Issue.record("garbage must not decode")
        } catch NetworkError.responseData(.decodeError(_, let failure)) {
            #expect(failure.bodyPrefix.count == NetworkDecodingFailure.bodyPrefixLimit)
            #expect(failure.bodyByteCount == 1000)
            #expect(failure.description.hasSuffix("…"))
        }
        do {
            _ = try response(200, body: #"{"title":"Alien"}"#).jsonDecode(Film.self)
        } catch NetworkError.responseData(.decodeError(_, let failure)) {
            #expect(failure.codingPath == "year")
            #expect(failure.message.contains("missing key \"year\""))
        }
    }

    @Test("Downloads decode from their file; a missing file is a typed error")
    func downloads() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-download-\(UUID().uuidString).json")
        try Data(#"{"title":"Heat","year":1995}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try NetworkRequest(url: "https://api.test/film.json")
        let head = NetworkResponseHead(statusCode: 200, headers: try NetworkHeaders([.header(key: "Content-Type", value: "application/json")]), url: request.url)
        let download = NetworkDownloadResponse(url: file, response: head, originalRequest: request)
        #expect(try download.validate().validateContentType(["application/json"]).jsonDecode(Film.self) == Film(title: "Heat", year: 1995))

        let gone = NetworkDownloadResponse(url: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"), response: head, originalRequest: request)
        do {
            _ = try gone.jsonDecode(Film.self)
            Issue.record("a missing file must not decode")
        } catch NetworkError.responseDownload(.unreadableBody(let failed, _)) {
            #expect(failed.url == gone.url)
        }
    }

    @Test("A download's error body is read back for the error model only up to 1 MiB; an empty one passes the Content-Type check")
    func downloadErrorModelBounded() throws {
        let request = try NetworkRequest(url: "https://api.test/film.json")
        let head = NetworkResponseHead(statusCode: 503, url: request.url)
        func download(_ body: Data) throws -> NetworkDownloadResponse {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-download-\(UUID().uuidString).json")
            try body.write(to: file)
            return NetworkDownloadResponse(url: file, response: head, originalRequest: request)
        }
        let model = Data(#"{"code":"E1","message":"busy"}"#.utf8)
        let small = try download(model)
        // The same model padded with spaces (still valid JSON) past 1 MiB.
        let large = try download(model + Data(repeating: UInt8(ascii: " "), count: 1 << 20))
        let empty = try download(Data())
        defer { for file in [small.url, large.url, empty.url] { try? FileManager.default.removeItem(at: file) } }
        #expect(throws: NetworkError.self) { try small.validateContentType(["application/json"]) }  // a body, no Content-Type
        #expect(throws: APIError(code: "E1", message: "busy")) { try small.validate(errorModel: APIError.self) }
        do {
            _ = try large.validate(errorModel: APIError.self)
            Issue.record("a 503 must not validate")
        } catch NetworkError.responseDownload(.invalidStatusCode(_, let code)) {
            #expect(code == 503)
        }
        #expect(try empty.validateContentType(["application/json"]).statusCode == 503)
    }

    @Test("A download whose error model is thrown loses its temporary file of Net's, never a destination the caller named")
    func downloadErrorModelRemovesTemporaryFile() throws {
        let request = try NetworkRequest(url: "https://api.test/film.json")
        let head = NetworkResponseHead(statusCode: 503, url: request.url)
        let model = Data(#"{"code":"E1","message":"busy"}"#.utf8)
        let temporary = NetworkDownloadResponse.newTemporaryFile()
        // Named like Net's own, in the same folder: the mark, not the name, tells them apart.
        let named = NetworkDownloadResponse.newTemporaryFile()
        let unmodelled = NetworkDownloadResponse.newTemporaryFile()
        for file in [temporary, named] { try model.write(to: file) }
        try Data("<html>busy</html>".utf8).write(to: unmodelled)
        defer { for file in [temporary, named, unmodelled] { try? FileManager.default.removeItem(at: file) } }
        for file in [temporary, named] {
            var download = NetworkDownloadResponse(url: file, response: head, originalRequest: request)
            download.isNetsTemporaryFile = file == temporary  // as the session marks what it named
            #expect(throws: APIError(code: "E1", message: "busy")) { try download.validate(errorModel: APIError.self) }
        }
        #expect(!FileManager.default.fileExists(atPath: temporary.path), "the model does not name the file: nobody else could remove it")
        #expect(FileManager.default.fileExists(atPath: named.path), "the caller's own file stays")
        // Not the model: the error carries the response, and so the file, which stays the caller's.
        var page = NetworkDownloadResponse(url: unmodelled, response: head, originalRequest: request)
        page.isNetsTemporaryFile = true
        #expect(throws: NetworkError.self) { try page.validate(errorModel: APIError.self) }
        #expect(FileManager.default.fileExists(atPath: unmodelled.path))
    }

    @Test("Uploads validate and decode the server's reply, and say what was sent")
    func uploads() throws {
        let request = try NetworkRequest(url: "https://api.test/upload", httpMethod: .post)
        let upload = NetworkUploadResponse(
            data: Data(#"{"title":"Jaws","year":1975}"#.utf8), response: NetworkResponseHead(statusCode: 201, url: request.url),
            originalRequest: request, uploadType: .stream(length: 42))
        #expect(try upload.validate().jsonDecode(Film.self).year == 1975)
        if case .stream(let length) = upload.uploadType { #expect(length == 42) } else { Issue.record("wrong upload type") }
        #expect(throws: NetworkError.self) { try upload.validate(correctRange: [200]) }
    }

    @Test("The response head exposes headers the way HTTPURLResponse does")
    func head() throws {
        let head = NetworkResponseHead(
            statusCode: 200,
            headers: try NetworkHeaders([.header(key: "content-type", value: "Text/HTML; charset=utf-8"), .header(key: "Content-Length", value: "42")]),
            url: URL(string: "https://x.test/final")!)
        #expect(head.value(forHTTPHeaderField: "Content-Type") == "Text/HTML; charset=utf-8")
        #expect(head.mimeType == "text/html")
        #expect(head.expectedContentLength == 42)
        #expect(head.description == "200 OK https://x.test/final")
    }
}
