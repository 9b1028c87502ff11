import Foundation
import NetCore
import Testing

@Suite("URL validation")
struct URLValidationTests {
    @Test("Invalid URL strings are typed errors carrying the string and the reason", arguments: [
        ("", NetworkError.InvalidURLReason.empty),
        ("relative/path", .missingScheme),
        ("/absolute/path", .missingScheme),
        ("example.com/items", .missingScheme),
        ("ftp://example.com/file", .unsupportedScheme("ftp")),
        ("file:///etc/passwd", .unsupportedScheme("file")),
        ("http:///nohost", .missingHost),
        ("https://exa mple.com", .containsWhitespaceOrControlCharacter),
        ("https://example.com/a b", .containsWhitespaceOrControlCharacter),
        ("https://example.com/a\nb", .containsWhitespaceOrControlCharacter),
        (" https://example.com", .containsWhitespaceOrControlCharacter),
        ("https://example.com/\u{0}", .containsWhitespaceOrControlCharacter),
        ("https://exämple.com/", .nonASCIIHost),
        ("https://[::1", .malformed),
        ("http://127.0.0.1:99999/", .invalidPort("99999")),
        ("http://localhost:65536/", .invalidPort("65536")),
        ("http://example.com:0/", .invalidPort("0")),
        ("http://example.com:99999999999999999999999/", .invalidPort("99999999999999999999999")),
        ("http://example.com:-1/", .invalidPort("-1")),
        ("http://user:pw@[::1]:70000/", .invalidPort("70000")),
    ])
    func invalid(string: String, reason: NetworkError.InvalidURLReason) {
        do {
            _ = try NetworkRequest(url: string)
            Issue.record("\(string.debugDescription) must be refused")
        } catch NetworkError.request(.invalidURL(let reported, let actualReason)) {
            #expect(reported == string)
            #expect(actualReason == reason)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("A URL value is checked too")
    func invalidURLValue() throws {
        let relative = try #require(URL(string: "items/1"))
        #expect(throws: NetworkError.self) { try NetworkRequest(url: relative) }
        let file = URL(fileURLWithPath: "/tmp/x")
        #expect(throws: NetworkError.self) { try NetworkRequest(url: file) }
        // Foundation keeps 99999 and silently drops a port too long for an Int; Net refuses both.
        for (string, port) in [("http://127.0.0.1:99999/", "99999"), ("http://h.test:99999999999999999999999/", "99999999999999999999999")] {
            let url = try #require(URL(string: string))
            #expect {
                try NetworkRequest(url: url)
            } throws: { error in
                guard case NetworkError.request(.invalidURL(string, reason: .invalidPort(port))) = error else { return false }
                return true
            }
        }
    }

    @Test("A URL set after the request was built is checked again, whatever was checked before", arguments: [
        ("ftp://example.com/file", NetworkError.InvalidURLReason.unsupportedScheme("ftp")),
        ("http:///nohost", .missingHost),
        ("http://user@:80/", .missingHost),
        ("http://127.0.0.1:99999/", .invalidPort("99999")),
    ])
    func revalidatedAfterMutation(string: String, reason: NetworkError.InvalidURLReason) throws {
        var request = try NetworkRequest(url: "https://example.com/")
        try request.validate()
        request.url = try #require(URL(string: string))
        #expect {
            try request.validate()
        } throws: { error in
            guard case NetworkError.request(.invalidURL(_, reason: let found)) = error else { return false }
            return found == reason
        }
    }

    @Test("Ports 1 and 65535 and an empty port (the default) are accepted", arguments: [
        "http://example.com:1/", "http://example.com:65535/", "http://example.com:/x", "http://[::1]:65535/",
    ])
    func validPorts(string: String) throws {
        #expect(try NetworkRequest(url: string).url.absoluteString == string)
    }

    @Test("Valid URLs pass unchanged", arguments: [
        "https://example.com", "http://127.0.0.1:8080/items?id=1#top", "http://[::1]:9000/v1",
        "HTTPS://EXAMPLE.COM/Path", "https://user:pass@example.com/", "https://example.com/a%2Fb?x=%2B",
        "https://xn--exmple-cua.com/",
    ])
    func valid(string: String) throws {
        #expect(try NetworkRequest(url: string).url.absoluteString == string)
    }

    @Test("Characters not allowed in URLs are percent-encoded as browsers do, keeping existing escapes")
    func encodesInvalidCharacters() throws {
        #expect(try NetworkRequest(url: "https://example.com/búsqueda/café").url.absoluteString
            == "https://example.com/b%C3%BAsqueda/caf%C3%A9")
        #expect(try NetworkRequest(url: "https://example.com/{id}/\"q\"|^`").url.absoluteString
            == "https://example.com/%7Bid%7D/%22q%22%7C%5E%60")
        #expect(try NetworkRequest(url: "https://example.com/a%2Bb/ñ/100%").url.absoluteString
            == "https://example.com/a%2Bb/%C3%B1/100%25")
    }

    @Test("Error descriptions explain the fix")
    func descriptions() {
        let error = NetworkError.request(.invalidURL("example.com", reason: .missingScheme))
        #expect(error.description == "Invalid request: invalid URL \"example.com\": it is relative; write it in full, starting with http:// or https://")
    }
}
