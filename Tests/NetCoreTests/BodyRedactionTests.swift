import Foundation
@testable import NetCore
import Testing

/// Credential values in JSON and multipart bodies, as HAR recordings and curl commands show them.
@Suite("Body redaction: JSON keys as a reader reads them, multipart form fields")
struct BodyRedactionTests {
    private let keys: Set<String> = ["password", "client_secret", "access_token"]

    @Test("a JSON key written with escapes is the key it decodes to: its value is redacted")
    func escapedJSONKeys() {
        let body = #"{"pass\u0077ord":"pw-1","client\u005Fsecret":"cs-1","ACCESS\u005ftoken":12345,"a\"b":"kept","\ud83d\ude00":"kept too","user":"ann"}"#
        #expect(BodyRedaction.redacting(body, contentType: "application/json", keys: keys)
            == #"{"pass\u0077ord":"REDACTED","client\u005Fsecret":"REDACTED","ACCESS\u005ftoken":"REDACTED","a\"b":"kept","\ud83d\ude00":"kept too","user":"ann"}"#)
    }

    @Test("JSON string contents decode as JSONDecoder reads them; escapes that are not JSON's are kept as written",
          arguments: [
              (#"plain"#, "plain"), (#"a\"b\\c\/d"#, "a\"b\\c/d"), (#"\b\f\n\r\t"#, "\u{8}\u{C}\n\r\t"),
              (#"caf\u00e9 \u00E9"#, "café é"), (#"\ud83d\ude00"#, "😀"), (#"é\u0041"#, "éA"),
          ])
    func decodesAsJSONDoes(_ written: String, _ decoded: String) throws {
        #expect(BodyRedaction.decodedJSONString(ArraySlice(written.utf8)) == decoded)
        let parsed = try JSONDecoder().decode(String.self, from: Data("\"\(written)\"".utf8))
        #expect(parsed == decoded, "the oracle")
    }

    @Test("malformed escapes never trap: a lone surrogate is U+FFFD, a short or non-hex \\u and an unknown escape are kept")
    func malformedEscapes() {
        #expect(BodyRedaction.decodedJSONString(ArraySlice(#"\ud83d!"#.utf8)) == "\u{FFFD}!")
        #expect(BodyRedaction.decodedJSONString(ArraySlice(#"\ude00"#.utf8)) == "\u{FFFD}")
        #expect(BodyRedaction.decodedJSONString(ArraySlice(#"\u12"#.utf8)) == #"\u12"#)
        #expect(BodyRedaction.decodedJSONString(ArraySlice(#"\u+041"#.utf8)) == #"\u+041"#)
        #expect(BodyRedaction.decodedJSONString(ArraySlice(#"\x\"#.utf8)) == #"\x\"#)
    }

    /// A form as browsers and NetMultipart write it, with a preamble and an epilogue.
    private func form(boundary: String, binary: [UInt8] = Array("file contents".utf8)) -> [UInt8] {
        var body = Array("preamble\r\n".utf8)
        func part(_ headers: String, _ content: [UInt8]) {
            body += Array("--\(boundary)\r\n\(headers)\r\n\r\n".utf8) + content + Array("\r\n".utf8)
        }
        part(#"Content-Disposition: form-data; name="username""#, Array("ann".utf8))
        part(#"Content-Disposition: form-data; name="password""#, Array("pw-0123456789".utf8))
        part("Content-Disposition: form-data; name=CLIENT_SECRET", Array("cs-0123456789\r\nsecond line".utf8))
        part("Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json", Array(#"{"access_token":"at-0123456789","n":1}"#.utf8))
        part(#"Content-Disposition: form-data; name="upload"; filename="password""#, binary)
        body += Array("--\(boundary)--\r\nepilogue".utf8)
        return body
    }

    @Test("a multipart form: credential fields (named in any case) replaced, a JSON field redacted as JSON, everything else byte for byte")
    func multipartFields() {
        let boundary = "NetFormBoundary0123"
        let redacted = BodyRedaction.redactingMultipart(form(boundary: boundary), contentType: "multipart/form-data; boundary=\"\(boundary)\"", keys: keys)
        var expected = Array("preamble\r\n".utf8)
        for (headers, content) in [
            (#"Content-Disposition: form-data; name="username""#, "ann"),
            (#"Content-Disposition: form-data; name="password""#, "REDACTED"),
            ("Content-Disposition: form-data; name=CLIENT_SECRET", "REDACTED"),
            ("Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json", #"{"access_token":"REDACTED","n":1}"#),
            (#"Content-Disposition: form-data; name="upload"; filename="password""#, "file contents"),
        ] {
            expected += Array("--\(boundary)\r\n\(headers)\r\n\r\n\(content)\r\n".utf8)
        }
        expected += Array("--\(boundary)--\r\nepilogue".utf8)
        #expect(String(decoding: redacted, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        // As text too (curl commands, logs), by the same media type.
        #expect(BodyRedaction.redacting(String(decoding: form(boundary: boundary), as: UTF8.self),
                                        contentType: "multipart/form-data; boundary=\(boundary)", keys: keys)
            == String(decoding: expected, as: UTF8.self))
    }

    @Test("what is not a multipart form with a boundary is returned as it is; a malformed part is kept, a form cut short still redacted")
    func notMultipart() throws {
        let body = form(boundary: "b")
        #expect(BodyRedaction.redactingMultipart(body, contentType: "multipart/form-data", keys: keys) == body)
        #expect(BodyRedaction.redactingMultipart(body, contentType: "text/plain; boundary=b", keys: keys) == body)
        #expect(BodyRedaction.redactingMultipart(body, contentType: nil, keys: keys) == body)
        #expect(BodyRedaction.redactingMultipart(body, contentType: "multipart/form-data; boundary=other", keys: keys) == body)
        // A part with no blank line after its headers is kept as it is; a last part with no
        // closing delimiter runs to the end, redacted as any other.
        let broken = "--b\r\nContent-Disposition: form-data; name=\"password\"\r\n--b\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nsecret"
        #expect(String(decoding: BodyRedaction.redactingMultipart(Array(broken.utf8), contentType: "multipart/form-data; boundary=b", keys: keys), as: UTF8.self)
            == broken.replacingOccurrences(of: "secret", with: "REDACTED"))
        // Cut short anywhere after the password's first four bytes, none of it is shown.
        let secret = Array("pw-0123456789".utf8)
        let at = try #require(firstRange(of: secret, in: body)).lowerBound
        for cut in (at + 4)...body.count {
            let shown = BodyRedaction.redactingMultipart(Array(body[..<cut]), contentType: "multipart/form-data; boundary=b", keys: keys)
            #expect(firstRange(of: Array(secret.prefix(4)), in: shown) == nil, "cut at \(cut): \(String(decoding: shown, as: UTF8.self))")
        }
    }

    @Test("a nested name's last bracketed part is a credential key, in a form, a query and JSON (a multipart field's in the bare-LF test)")
    func nestedNames() {
        #expect(NetworkRedaction.isCredentialKey("user[password]", in: keys))
        #expect(NetworkRedaction.isCredentialKey("auth[Client_Secret][]", in: keys))
        #expect(NetworkRedaction.isCredentialKey("PASSWORD", in: keys))
        #expect(!NetworkRedaction.isCredentialKey("password_hint", in: keys))
        #expect(!NetworkRedaction.isCredentialKey("password[hint]", in: keys))
        #expect(!NetworkRedaction.isCredentialKey("[", in: keys) && !NetworkRedaction.isCredentialKey("]", in: keys) && !NetworkRedaction.isCredentialKey("[]", in: keys))
        #expect(BodyRedaction.redacting("user%5Bpassword%5D=pw-1&user%5Bname%5D=ann", contentType: "application/x-www-form-urlencoded", keys: keys)
            == "user%5Bpassword%5D=REDACTED&user%5Bname%5D=ann")
        #expect(NetworkRedaction.redactedURL("https://x.test/?user[password]=pw-1&q=2", exactKeys: keys) == "https://x.test/?user[password]=REDACTED&q=2")
        #expect(BodyRedaction.redacting(#"{"user[password]":"pw-1"}"#, contentType: "application/json", keys: keys) == #"{"user[password]":"REDACTED"}"#)
    }

    @Test("a form whose lines end in a bare LF is redacted as one in CRLF")
    func bareLineFeeds() {
        let body = "--b\nContent-Disposition: form-data; name=\"user[password]\"\n\npw-0123456789\n--b\nContent-Disposition: form-data; name=\"user\"\n\nann\n--b--\n"
        #expect(String(decoding: BodyRedaction.redactingMultipart(Array(body.utf8), contentType: "multipart/form-data; boundary=b", keys: keys), as: UTF8.self)
            == body.replacingOccurrences(of: "pw-0123456789", with: "REDACTED"))
    }

    @Test("a quoted boundary is read as RFC 9110 reads a quoted string: a quoted pair is the character it escapes")
    func quotedPairInBoundary() {
        // boundary="a\"b" is the boundary a"b: read with its backslash, no delimiter would be found
        // and the password would be shown.
        let body = #"--a"b"# + "\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw-0123456789\r\n" + #"--a"b--"# + "\r\n"
        let shown = BodyRedaction.redactingMultipart(Array(body.utf8), contentType: #"multipart/form-data; boundary="a\"b""#, keys: keys)
        #expect(String(decoding: shown, as: UTF8.self) == body.replacingOccurrences(of: "pw-0123456789", with: "REDACTED"))
    }

    @Test("a backslash in a quoted boundary or field name is also read as it stands, as Werkzeug and multipart-kit read it")
    func backslashKeptAsItStands() {
        // Net's own form writer sends a backslash in a name as it is (PartHeaderEncoding).
        let named = "--b\r\nContent-Disposition: form-data; name=\"a\\b\"\r\n\r\nsecret-0123\r\n--b--\r\n"
        let shownNamed = BodyRedaction.redactingMultipart(Array(named.utf8), contentType: "multipart/form-data; boundary=b", keys: keys.union([#"a\b"#]))
        #expect(String(decoding: shownNamed, as: UTF8.self) == named.replacingOccurrences(of: "secret-0123", with: "REDACTED"))
        // A hand-written form whose delimiters keep the backslash of its quoted boundary.
        let body = #"--a\b"# + "\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw-0123456789\r\n" + #"--a\b--"# + "\r\n"
        let shown = BodyRedaction.redactingMultipart(Array(body.utf8), contentType: #"multipart/form-data; boundary="a\b""#, keys: keys)
        #expect(String(decoding: shown, as: UTF8.self) == body.replacingOccurrences(of: "pw-0123456789", with: "REDACTED"))
        #expect(BodyRedaction.redacting(body, contentType: #"multipart/form-data; boundary="a\b""#, keys: keys)
            == body.replacingOccurrences(of: "pw-0123456789", with: "REDACTED"))
    }

    @Test("a hostile body (200,000 delimiters, no part with a header end) is read in one pass")
    func hostileBody() {
        let body = [UInt8](repeating: 0, count: 0) + Array(String(repeating: "\r\n--a", count: 200_000).utf8)
        let clock = ContinuousClock()
        let started = clock.now
        let shown = BodyRedaction.redactingMultipart(body, contentType: "multipart/form-data; boundary=a", keys: keys)
        #expect(shown == body)
        // A hang guard, not a speed test: a search per part running to the body's end took minutes.
        #expect(clock.now - started < .seconds(60))
    }

    @Test("a media type is recognised in any case, with parameters, and only when it is there")
    func mediaTypes() {
        #expect(BodyRedaction.mentions("Application/JSON; charset=utf-8", "json"))
        #expect(BodyRedaction.mentions("application/vnd.api+json", "json"))
        #expect(BodyRedaction.mentions("MULTIPART/FORM-DATA; boundary=b", "multipart/form-data"))
        #expect(!BodyRedaction.mentions("text/plain", "json") && !BodyRedaction.mentions("", "json") && !BodyRedaction.mentions("jso", "json"))
        #expect(BodyRedaction.redacting(#"{"password":"pw-1"}"#, contentType: "Application/JSON", keys: keys) == #"{"password":"REDACTED"}"#)
        #expect(BodyRedaction.redacting("password=pw-1", contentType: "APPLICATION/X-WWW-FORM-URLENCODED", keys: keys) == "password=REDACTED")
        #expect(BodyRedaction.redacting(#"{"password":"pw-1"}"#, contentType: nil, keys: keys) == #"{"password":"pw-1"}"#)
    }

    private func firstRange(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= bytes.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }.map { $0..<($0 + needle.count) }
    }
}
