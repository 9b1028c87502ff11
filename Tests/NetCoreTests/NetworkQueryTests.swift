import Foundation
import NetCore
import NetTestSupport
import Testing

@Suite("NetworkQuery encoding")
struct NetworkQueryTests {
    private func url(_ base: String, _ query: [NetworkQuery]) throws -> String {
        try NetworkRequest(url: base, query: query).url.absoluteString
    }

    @Test("ALTENNetwork's query-string cases")
    func seedCases() throws {
        let reserved = "!$&'()*+,;="
        let reservedWithSpace = "!$&'()*+, ;="
        #expect(try url("https://google.es", []) == "https://google.es")
        #expect(try url("https://google.es", [.query(key: "key", value: "value")]) == "https://google.es?key=value")
        #expect(try url("https://google.es?prueba=valor", [.query(key: "key", value: "value")]) == "https://google.es?prueba=valor&key=value")
        // The seed expected `+` raw unless forceEncodingPlusSymbol was set; a raw `+` reaches most
        // servers as a space, so Net always sends what the seed's forced cases expect.
        #expect(try url("https://google.es", [.query(key: "key", value: reserved)]) == "https://google.es?key=!$%26'()*%2B,;%3D")
        #expect(try url("https://google.es", [.query(key: "key", value: reservedWithSpace, forceEncodingPlusSymbol: true)])
            == "https://google.es?key=!$%26'()*%2B,%20;%3D")
        #expect(try url("https://google.es", [
            .query(key: "key", value: reservedWithSpace, forceEncodingPlusSymbol: true),
            .query(key: "key2", value: reservedWithSpace),
        ]) == "https://google.es?key=!$%26'()*%2B,%20;%3D&key2=!$%26'()*%2B,%20;%3D")
        #expect(try url("https://google.es?prueba=valor", [
            .query(key: "key", value: reservedWithSpace, forceEncodingPlusSymbol: true),
            .query(key: "key2", value: reservedWithSpace, forceEncodingPlusSymbol: false),
        ]) == "https://google.es?prueba=valor&key=!$%26'()*%2B,%20;%3D&key2=!$%26'()*%2B,%20;%3D")
    }

    @Test("Keys needing encoding are encoded too (the seed's forceEncodingPlusSymbol missed them)")
    func keysAreEncoded() throws {
        #expect(try url("https://x.test", [.query(key: "a+b c&d=e", value: "1")]) == "https://x.test?a%2Bb%20c%26d%3De=1")
    }

    @Test("Escapes already in the base URL are preserved byte for byte")
    func baseEscapesPreserved() throws {
        #expect(try url("https://x.test/a%2Bb/c%2fd?q=%2B&r=%25", [.query(key: "s", value: "+")])
            == "https://x.test/a%2Bb/c%2fd?q=%2B&r=%25&s=%2B")
        #expect(try url("https://x.test/caf%C3%A9", []) == "https://x.test/caf%C3%A9")
    }

    @Test("Order, duplicates, empty and missing values are kept; fragments stay last")
    func shapes() throws {
        #expect(try url("https://x.test/p", [
            .query(key: "a", value: "1"), .query(key: "a", value: "2"), .query(key: "empty", value: ""),
            .query(key: "flag", value: nil), .query(key: "a", value: "3"),
        ]) == "https://x.test/p?a=1&a=2&empty=&flag&a=3")
        #expect(try url("https://x.test/p#section", [.query(key: "a", value: "1")]) == "https://x.test/p?a=1#section")
        #expect(try url("https://x.test/p?", [.query(key: "a", value: "1")]) == "https://x.test/p?a=1")
        #expect(try url("https://x.test/p?x=1&", [.query(key: "a", value: "1")]) == "https://x.test/p?x=1&a=1")
    }

    @Test("Non-ASCII keys and values are UTF-8 percent-encoded")
    func nonASCII() throws {
        #expect(try url("https://x.test", [.query(key: "ciudad", value: "Málaga 東京 🚀")])
            == "https://x.test?ciudad=M%C3%A1laga%20%E6%9D%B1%E4%BA%AC%20%F0%9F%9A%80")
    }

    static let hostileStrings: [String] = {
        var generator = SeededGenerator(seed: 0x5EED)
        let alphabet = Array("aZ09 +&=#%/?;:@!$'()*,[]{}\"<>\\^`|~-._\u{00E9}\u{6771}\u{1F680}\u{202E}\t\n")
        var strings = ["", "+", "%", "%2B", "%%", "a=b", "a&b", "#frag", "?", "/", " ", "++", "%zz", "\u{0}"]
        for _ in 0..<300 {
            let length = Int.random(in: 1...24, using: &generator)
            strings.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }))
        }
        return strings
    }()

    @Test("Random hostile keys and values decode back exactly with Foundation's URLComponents")
    func roundTripURLComponents() throws {
        let strings = Self.hostileStrings
        let query = zip(strings, strings.reversed()).map { NetworkQuery(key: $0, value: $1) }
        let built = try NetworkRequest(url: "https://x.test/search?existing=%2B1", query: query).url
        let items = try #require(URLComponents(url: built, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.first?.name == "existing" && items.first?.value == "+1")
        #expect(items.dropFirst().map(\.name) == query.map(\.key))
        #expect(items.dropFirst().map(\.value) == query.map(\.value))
    }

    @Test("Random hostile keys and values decode back exactly with Python's urllib.parse.parse_qsl")
    func roundTripPython() async throws {
        let strings = Self.hostileStrings
        var generator = SeededGenerator(seed: 42)
        let query = zip(strings, strings.shuffled(using: &generator)).map { NetworkQuery(key: $0, value: $1) }
        let built = try NetworkRequest(url: "https://x.test/search", query: query).url.absoluteString
        let script = """
            import json, sys, urllib.parse
            query = urllib.parse.urlsplit(sys.stdin.read()).query
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=True, encoding='utf-8', errors='strict')
            print(json.dumps(pairs))
            """
        let output = try await runProcessOffPool("/usr/bin/env", ["python3", "-c", script], input: Data(built.utf8))
        let pairs = try JSONDecoder().decode([[String]].self, from: output)
        #expect(pairs.map { $0[0] } == query.map(\.key))
        #expect(pairs.map { $0[1] } == query.map { $0.value ?? "" })
    }
}
