import Foundation
import NetCore
import Testing

@Suite("curl rendering")
struct CurlRenderingTests {
    @Test("A GET renders as the URL alone, quoted")
    func simpleGet() throws {
        #expect(try NetworkRequest(url: "https://x.test/a?b=1").curl == "curl 'https://x.test/a?b=1'")
    }

    @Test("Methods: HEAD uses --head, POST with a body is implied, everything else is -X")
    func methods() throws {
        #expect(try NetworkRequest(url: "https://x.test", httpMethod: .head).curlCommand().arguments == ["--head", "https://x.test"])
        #expect(try NetworkRequest(url: "https://x.test", httpMethod: .post, httpBody: Data("a".utf8)).curlCommand().arguments
            == ["-H", "Content-Type:", "--data-raw", "a", "https://x.test"])
        #expect(try NetworkRequest(url: "https://x.test", httpMethod: .post).curlCommand().arguments == ["-X", "POST", "https://x.test"])
        #expect(try NetworkRequest(url: "https://x.test", httpMethod: .get, httpBody: Data("a".utf8)).curlCommand().arguments.prefix(2) == ["-X", "GET"])
        #expect(try NetworkRequest(url: "https://x.test", httpMethod: .other("PROPFIND")).curlCommand().arguments == ["-X", "PROPFIND", "https://x.test"])
    }

    @Test("Headers keep their order; empty values use curl's `Name;` form")
    func headers() throws {
        let request = try NetworkRequest(url: "https://x.test", headers: [
            .header(key: "Accept", value: "a"), .header(key: "X-Empty", value: ""), .header(key: "accept", value: "b"),
        ])
        #expect(request.curlCommand().arguments == ["-H", "Accept: a", "-H", "X-Empty;", "-H", "accept: b", "https://x.test"])
    }

    @Test("Credentials are redacted by default and shown only when asked")
    func redaction() throws {
        let request = try NetworkRequest(
            url: "https://user:hunter2@x.test/p?apikey=SECRET1&page=2&Access_Token=SECRET2#frag",
            headers: [
                .header(key: "Authorization", value: "Bearer SECRET3"), .header(key: "cookie", value: "session=SECRET4"),
                .header(key: "Proxy-Authorization", value: "Basic SECRET5"), .header(key: "X-API-Key", value: "SECRET6"),
                .header(key: "Accept", value: "application/json"),
            ])
        let redacted = request.curl
        for secret in ["hunter2", "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6"] {
            #expect(!redacted.contains(secret), "\(secret) leaked: \(redacted)")
        }
        #expect(redacted.contains("'Authorization: Bearer REDACTED'"))
        #expect(redacted.contains("'Proxy-Authorization: Basic REDACTED'"))
        #expect(redacted.contains("'cookie: REDACTED'"))
        #expect(redacted.contains("https://user:REDACTED@x.test/p?apikey=REDACTED&page=2&Access_Token=REDACTED#frag"))
        #expect(redacted.contains("'Accept: application/json'"))

        let shown = request.curlCommand(.unredacted).shellCommand
        for secret in ["hunter2", "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6"] {
            #expect(shown.contains(secret))
        }
        var custom = CurlOptions()
        custom.sensitiveHeaderNames.insert("accept")
        #expect(request.curlCommand(custom).arguments.contains("Accept: REDACTED"))
    }

    @Test("Credentials in a form or JSON body, and a body repeating a header's token, are redacted by default and shown only when asked")
    func bodyCredentials() throws {
        let multipart = try NetworkRequest(
            url: "https://x.test/signup", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "multipart/form-data; boundary=B0")],
            httpBody: Data("--B0\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw-0123456789\r\n--B0--\r\n".utf8))
        #expect(!multipart.curl.contains("pw-0123456789") && multipart.curl.contains("REDACTED"), "\(multipart.curl)")
        #expect(multipart.curlCommand(.unredacted).shellCommand.contains("pw-0123456789"))
        // Beside a binary file (not UTF-8), through printf, redacted and scrubbed all the same.
        let binary = try NetworkRequest(
            url: "https://x.test/signup", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "multipart/form-data; boundary=B0"), .header(key: "Authorization", value: "Bearer tk-0123456789")],
            httpBody: Data("--B0\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\npw-0123456789\r\n--B0\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\ntk-0123456789\r\n--B0\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\n".utf8)
                + Data([0xFF, 0xD8, 0xFF]) + Data("\r\n--B0--\r\n".utf8))
        let piped = try #require(binary.curlCommand().standardInput)
        #expect(piped.range(of: Data("pw-0123456789".utf8)) == nil && piped.range(of: Data("REDACTED".utf8)) != nil)
        #expect(piped.range(of: Data("tk-0123456789".utf8)) == nil, "the request's own token, repeated in a field")
        #expect(piped.range(of: Data([0xFF, 0xD8, 0xFF])) != nil)
        #expect(binary.curlCommand(.unredacted).standardInput?.range(of: Data("pw-0123456789".utf8)) != nil)

        let form = try NetworkRequest(
            url: "https://x.test/oauth/token", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "application/x-www-form-urlencoded")],
            httpBody: Data("grant_type=refresh_token&refresh_token=rt-0123456789&client_secret=cs-0123456789&scope=read".utf8))
        #expect(form.curl.contains("grant_type=refresh_token&refresh_token=REDACTED&client_secret=REDACTED&scope=read"), "\(form.curl)")
        #expect(form.curlCommand(.unredacted).shellCommand.contains("refresh_token=rt-0123456789&client_secret=cs-0123456789"))

        let json = try NetworkRequest(
            url: "https://x.test/login", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "application/json"), .header(key: "Authorization", value: "Bearer tk-0123456789")],
            httpBody: Data(#"{"user":"ann","password":"pw-0123456789","echo":"tk-0123456789"}"#.utf8))
        let shown = json.curl
        for secret in ["pw-0123456789", "tk-0123456789"] { #expect(!shown.contains(secret), "\(secret) leaked: \(shown)") }
        #expect(shown.contains(#"{"user":"ann","password":"REDACTED","echo":"REDACTED"}"#), "\(shown)")

        // An invisible character sends the body through printf: redacted the same.
        let invisible = try NetworkRequest(
            url: "https://x.test/login", httpMethod: .post, headers: [.header(key: "Content-Type", value: "application/json; charset=utf-8")],
            httpBody: Data("{\"password\":\"pw-9876543210\",\"name\":\"Ann\u{200B}\"}".utf8))
        #expect(!invisible.curl.contains("pw-9876543210") && invisible.curl.contains("printf"), "\(invisible.curl)")
    }

    @Test("No -k unless asked; -L and --max-time on request")
    func flags() throws {
        let request = try NetworkRequest(url: "https://x.test", timeout: .milliseconds(1500))
        #expect(!request.curlCommand().arguments.contains("-k"))
        #expect(request.curlCommand().arguments == ["--max-time", "1.5", "https://x.test"])
        let options = CurlOptions(allowsInsecureTLS: true, followsRedirects: true, includesTimeout: false)
        #expect(request.curlCommand(options).arguments == ["-L", "-k", "https://x.test"])
    }

    @Test("Binary bodies are piped through printf; files are referenced; streams are noted")
    func bodies() throws {
        let binary = Data([0, 1, 0x27, 0x5C, 0x25, 0x41, 0xFF])
        let command = try NetworkRequest(url: "https://x.test", httpMethod: .put, httpBody: binary).curlCommand()
        #expect(command.standardInput == binary)
        #expect(command.shellCommand.hasPrefix(#"printf '\000\001\047\134\045A\377' | curl -X 'PUT'"#))
        #expect(command.arguments.suffix(3) == ["--data-binary", "@-", "https://x.test"])

        let file = try NetworkRequest(url: "https://x.test", httpMethod: .post, body: .file(URL(fileURLWithPath: "/tmp/it's here.bin")))
        #expect(file.curlCommand().arguments.suffix(3) == ["--data-binary", "@/tmp/it's here.bin", "https://x.test"])

        let stream = try NetworkRequest(url: "https://x.test", httpMethod: .post, body: .stream(NetworkBodyStream(chunks: [Data("abc".utf8)])))
        #expect(stream.curl.hasSuffix("# streamed body (3 bytes) is read from standard input"))

        let json = try NetworkRequest(url: "https://x.test", httpMethod: .post, jsonBody: ["a": "it's"])
        #expect(json.curl == #"curl -H 'Content-Type: application/json' --data-raw '{"a":"it'\''s"}' 'https://x.test'"#)
    }

    @Test("Text that could mislead a terminal (escapes, bidi overrides) is sent as bytes, not shown raw")
    func misleadingText() throws {
        for text in ["\u{1B}[2J", "abc\u{202E}cba", "line\rover"] {
            let command = try NetworkRequest(url: "https://x.test", httpMethod: .post, httpBody: Data(text.utf8)).curlCommand()
            #expect(command.standardInput == Data(text.utf8))
            #expect(command.shellCommand.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
        }
    }

    @Test("URLs with [] or {} turn off curl's globbing")
    func globbing() throws {
        let request = try NetworkRequest(url: "http://[::1]:8080/a")
        #expect(request.curlCommand().arguments == ["--globoff", "http://[::1]:8080/a"])
    }
}
