import Foundation
import NetMultipart
import NetTestSupport
import Testing

/// Names and filenames as Werkzeug (the parser behind Flask, from PyPI) reads them: the WHATWG
/// escaping sends a backslash as it is, so `a\b` arrives as `a\b`, not `a%5Cb`.
@Suite("NetMultipart: names and filenames through Werkzeug's form parser")
struct MultipartWerkzeugTests {
    static let script = """
        import io, json, sys
        from werkzeug.formparser import parse_form_data
        body = sys.stdin.buffer.read()
        environ = {"REQUEST_METHOD": "POST", "CONTENT_TYPE": sys.argv[1], "CONTENT_LENGTH": str(len(body)),
                   "wsgi.input": io.BytesIO(body)}
        _, form, files = parse_form_data(environ)
        print(json.dumps({"fields": [[k, v] for k, v in form.items(multi=True)],
                          "files": [[k, f.filename, f.read().decode("utf-8")] for k, f in files.items(multi=True)]}))
        """

    struct Parsed: Decodable {
        var fields: [[String]]
        var files: [[String]]
    }

    @Test("a backslash arrives as a backslash; quote, CR and LF arrive as a browser's would")
    func backslashAndEscapes() async throws {
        let form = try NetworkMultipartForm(parts: [
            NetworkMultipartFormDataRequest(name: "a\\b", value: "1"),
            NetworkMultipartFormDataRequest(name: "say \"hi\"", value: "2"),
            NetworkMultipartFormDataRequest(name: "two\r\nlines", value: "3"),
            NetworkMultipartFormFileRequest(name: "upload", filename: "C:\\dir\\f.txt", value: Data("body".utf8), contentType: "text/plain"),
        ])
        let body = try await form.encodedData()
        let output = try await runProcessOffPool("/usr/bin/env", ["python3", "-c", Self.script, form.contentType], input: body)
        let parsed = try JSONDecoder().decode(Parsed.self, from: output)
        // Werkzeug turns %22 back into a quote (as the WHATWG parser does) and leaves %0D%0A.
        #expect(parsed.fields == [["a\\b", "1"], ["say \"hi\"", "2"], ["two%0D%0Alines", "3"]])
        #expect(parsed.files == [["upload", "C:\\dir\\f.txt", "body"]])
    }
}
