import NetCore
import Testing

@Suite("NetworkHeader and NetworkHeaders")
struct NetworkHeadersTests {
    @Test("Lookup ignores case; repeated fields keep their order")
    func lookup() throws {
        var headers = try NetworkHeaders([.header(key: "Accept", value: "application/json"), .header(key: "X-Trace", value: "1")])
        try headers.add(name: "ACCEPT", value: "text/plain")
        #expect(headers["accept"] == "application/json")
        #expect(headers.values(for: "aCcEpT") == ["application/json", "text/plain"])
        #expect(headers.map(\.name) == ["Accept", "X-Trace", "ACCEPT"])
        #expect(headers.contains(name: "x-trace"))
        #expect(headers["missing"] == nil)
    }

    @Test("set replaces every case variant in place of the first; remove drops them all")
    func setAndRemove() throws {
        var headers = try NetworkHeaders([
            NetworkHeader(name: "A", value: "1"), NetworkHeader(name: "content-type", value: "x"),
            NetworkHeader(name: "B", value: "2"), NetworkHeader(name: "Content-Type", value: "y"),
        ])
        try headers.set(name: "CONTENT-TYPE", value: "application/json")
        #expect(headers.map(\.description) == ["A: 1", "CONTENT-TYPE: application/json", "B: 2"])
        try headers.set(name: "C", value: "3")
        #expect(headers.last?.description == "C: 3")
        headers.remove(name: "content-type")
        #expect(headers.map(\.name) == ["A", "B", "C"])
    }

    @Test("Values are trimmed of surrounding spaces; non-ASCII values are kept")
    func values() throws {
        let headers = try NetworkHeaders([.header(key: "X-Name", value: "  José 東京 \t"), .header(key: "X-Empty", value: "")])
        #expect(headers["x-name"] == "José 東京")
        #expect(headers["x-empty"] == "")
    }

    @Test("Equality ignores name case but not order or values")
    func equality() throws {
        let a = try NetworkHeaders([.header(key: "Accept", value: "a"), .header(key: "X", value: "b")])
        let b = try NetworkHeaders([.header(key: "accept", value: "a"), .header(key: "x", value: "b")])
        let c = try NetworkHeaders([.header(key: "X", value: "b"), .header(key: "Accept", value: "a")])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }

    @Test("Header injection through a value is refused", arguments: [
        "a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b", "bell\u{7}", "del\u{7F}",
        // Non-ASCII text beside the control, in the same eight bytes the scan reads at once.
        "é\r\nX-Injected: 1", "東京\u{7F}", "\u{FF}\u{FF}\u{FF}\u{0}", "ab東\nX: 1東京東京",
    ])
    func forbiddenValues(value: String) {
        do {
            _ = try NetworkHeaders([.header(key: "X-Test", value: value)])
            Issue.record("value \(value.debugDescription) must be refused")
        } catch NetworkError.request(.invalidHeader(let name, .forbiddenValueCharacter)) {
            #expect(name == "X-Test")
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(throws: NetworkError.self) { try NetworkRequest(url: "https://example.com", headers: [.header(key: "X-Test", value: value)]) }
    }

    @Test("Of every scalar up to U+00FF, at every place in values of 1 to 19 characters, exactly the controls other than tab and DEL are refused, naming that scalar")
    func valueCharactersAtEveryPosition() throws {
        // RFC 9110 §5.5, as `isForbiddenInValue` states it, written out here apart from the scan
        // (which reads eight bytes at a time): every position of a first, second and third word.
        let refused = Set<UInt32>((0..<0x20).filter { $0 != 0x09 } + [0x7F])
        for value in UInt32(0)...255 {
            let scalar = try #require(Unicode.Scalar(value))
            for length in 1...19 {
                for position in 0..<length {
                    let text = String(repeating: "v", count: position) + String(scalar) + String(repeating: "w", count: length - position - 1)
                    do {
                        let field = try NetworkHeader(name: "X-Test", value: text).validated()
                        #expect(!refused.contains(value), "U+\(String(value, radix: 16)) at \(position) of \(length) was kept")
                        let isEdgeWhitespace = (value == 0x20 || value == 0x09) && (position == 0 || position == length - 1)
                        #expect((field.value == text) == !isEdgeWhitespace, "U+\(String(value, radix: 16)) at \(position) of \(length)")
                    } catch NetworkError.request(.invalidHeader(_, .forbiddenValueCharacter(let bad))) {
                        #expect(refused.contains(value) && bad == scalar, "U+\(String(value, radix: 16)) at \(position) of \(length) refused as \(bad)")
                    }
                }
            }
        }
    }

    @Test("Names must be HTTP tokens", arguments: ["", "Bad Name", "X-Ünïcode", "Name:", "X\r\nY", "a\u{0}", "(x)"])
    func forbiddenNames(name: String) {
        var headers = NetworkHeaders()
        #expect(throws: NetworkError.self) { try headers.add(name: name, value: "v") }
        #expect(headers.isEmpty)
    }

    @Test("The first refused character is the one named, wherever it is in its eight bytes")
    func firstRefusedCharacterIsNamed() {
        for (value, first) in [("ab\u{1}\u{2}", "\u{1}"), ("abcdefg\u{7F}\u{0}", "\u{7F}"), ("é\u{1B}\r\n", "\u{1B}"), ("\u{2}\u{1}", "\u{2}")] as [(String, Unicode.Scalar)] {
            do {
                _ = try NetworkHeader(name: "X", value: value).validated()
                Issue.record("\(value.debugDescription) must be refused")
            } catch NetworkError.request(.invalidHeader(_, .forbiddenValueCharacter(let named))) {
                #expect(named == first, "\(value.debugDescription)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("Errors say which character was refused")
    func errorDescription() {
        let error = NetworkError.request(.invalidHeader(name: "X-Test", reason: .forbiddenValueCharacter("\r")))
        #expect(error.description.contains("U+000D"))
        #expect(error.description.contains("X-Test"))
    }

    @Test("a received field the rules refuse is kept with its controls as spaces; a name that is not a token is dropped")
    func receivedFields() {
        var headers = NetworkHeaders()
        headers.addReceived(name: "Cache-Control", value: "no-store\u{01}")
        headers.addReceived(name: "X-Mixed", value: "a\u{7F}b\tc\u{1B}[2J")
        headers.addReceived(name: "X-Plain", value: "café")
        headers.addReceived(name: "Bad Name", value: "v")
        #expect(headers.map(\.name) == ["Cache-Control", "X-Mixed", "X-Plain"])
        #expect(headers["Cache-Control"] == "no-store")  // the trailing space trimmed, as any value's
        #expect(headers["X-Mixed"] == "a b\tc [2J")
        #expect(headers["X-Plain"] == "café")
    }

    @Test("a quoted string loses its quotes and reads each quoted pair as the character it escapes")
    func unquoted() {
        #expect(NetworkHeader.unquoted("\"abc\"") == "abc")
        #expect(NetworkHeader.unquoted("\"a\\\"b\"") == "a\"b")       // "a\"b"  -> a"b
        #expect(NetworkHeader.unquoted("\"a\\\\b\"") == "a\\b")     // "a\\b" -> a\b
        #expect(NetworkHeader.unquoted("\"a\\bc\"") == "abc")          // a backslash before any character
        #expect(NetworkHeader.unquoted("\"\"") == "")
        #expect(NetworkHeader.unquoted("token") == "token")
        #expect(NetworkHeader.unquoted("\"") == "\"")                   // a lone quote is not a quoted string
        #expect(NetworkHeader.unquoted("\"open") == "\"open")
        #expect(NetworkHeader.unquoted("\"a\\\"") == "\"a\\\"")   // "a\" never closes: its last quote is escaped
        #expect(NetworkHeader.unquoted("\"a\"b\"") == "a\"b")         // a bare quote inside is kept as it stands
        #expect(NetworkHeader.unquoted(Substring("x\"y\"z").dropFirst().dropLast()) == "y")
    }
}
