import NetCore
import Testing

@Suite("NetworkHttpMethod")
struct NetworkHttpMethodTests {
    @Test("The seed's methods have their wire tokens")
    func tokens() {
        let all: [NetworkHttpMethod] = [.get, .head, .post, .put, .delete, .trace, .options, .connect, .patch, .move]
        #expect(all.map(\.rawValue) == ["GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH", "MOVE"])
        #expect(NetworkHttpMethod.other("PROPFIND").rawValue == "PROPFIND")
    }

    @Test("Parsing maps known tokens to cases; methods are case-sensitive")
    func parsing() {
        #expect(NetworkHttpMethod(rawValue: "PATCH") == .patch)
        #expect(NetworkHttpMethod(rawValue: "PROPFIND") == .other("PROPFIND"))
        #expect(NetworkHttpMethod.other("GET") == .get)
        #expect(NetworkHttpMethod(rawValue: "get") != .get)
        #expect(Set([NetworkHttpMethod.other("GET"), .get]).count == 1)
    }

    @Test("Invalid tokens are typed errors", arguments: ["", "GET POST", "GET\r\nX-Injected: 1", "GE\nT", "PRÓPFIND", "A\u{0}", "(GET)"])
    func invalidTokens(token: String) throws {
        #expect(NetworkHttpMethod(rawValue: token) == nil)
        #expect(throws: NetworkError.self) { try NetworkHttpMethod(validating: token) }
        do {
            _ = try NetworkRequest(url: "https://example.com", httpMethod: .other(token))
            Issue.record("an invalid method must not build a request")
        } catch NetworkError.request(.invalidMethod(let reported)) {
            #expect(reported == token)
        }
    }

    @Test("Safe and idempotent methods follow RFC 9110")
    func semantics() {
        #expect(NetworkHttpMethod.get.isSafe && NetworkHttpMethod.get.isIdempotent)
        #expect(!NetworkHttpMethod.put.isSafe && NetworkHttpMethod.put.isIdempotent)
        #expect(!NetworkHttpMethod.post.isIdempotent && !NetworkHttpMethod.patch.isIdempotent)
        // Every method, named or spelled out as `.other`, against RFC 9110's lists.
        let safe: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"], idempotent = safe.union(["PUT", "DELETE"])
        let all: [NetworkHttpMethod] = [.get, .head, .post, .put, .delete, .trace, .options, .connect, .patch, .move]
        for method in all + all.map({ .other($0.rawValue) }) + [.other("PROPFIND"), .other("get")] {
            #expect(method.isSafe == safe.contains(method.rawValue), "\(method)")
            #expect(method.isIdempotent == idempotent.contains(method.rawValue), "\(method)")
            #expect(throws: Never.self, "\(method)") { try method.validate() }
        }
    }

    @Test("Exactly RFC 9110's token characters are accepted in methods and header names, of every scalar up to U+00FF")
    func tokenCharactersAreExactlyRFC9110s() throws {
        // RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
        // "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        #expect(tchar.count == 77)
        for value in UInt32(0)...255 {
            let scalar = try #require(Unicode.Scalar(value))
            let isToken = tchar.contains(scalar)
            // At every place in tokens of 1 to 19 bytes: the check reads eight bytes at a time.
            for length in 1...19 {
                for position in 0..<length {
                    let token = String(repeating: "a", count: position) + String(scalar) + String(repeating: "Z", count: length - position - 1)
                    #expect((NetworkHttpMethod(rawValue: token) != nil) == isToken, "method with byte \(value) at \(position) of \(length)")
                    #expect(((try? NetworkHeader(name: token, value: "v").validated()) != nil) == isToken, "header name with byte \(value) at \(position) of \(length)")
                }
            }
        }
    }
}
