import Foundation
import NetCore
import NetTestSupport
import Testing

@Suite("URL-encoded forms")
struct URLEncodedFormTests {
    @Test("The serializer is the WHATWG one, byte for byte: letters, digits and *-._ as they are, a space as +, the rest %XX")
    func serializerBytes() {
        for byte in UInt8(0)...UInt8(127) {
            let text = String(decoding: [byte], as: UTF8.self)
            let expected: String
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                expected = text
            case UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                expected = text
            case UInt8(ascii: " "):
                expected = "+"
            default:
                expected = "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
            #expect(URLEncodedForm.serialize([(text, text)]) == "\(expected)=\(expected)", "byte \(byte)")
        }
        #expect(URLEncodedForm.serialize([("name", "Ann Smith"), ("city", "Oslo & Bergen"), ("é", "~+")]) == "name=Ann+Smith&city=Oslo+%26+Bergen&%C3%A9=%7E%2B")
        #expect(URLEncodedForm.serialize([]) == "")
    }

    struct Address: Encodable { let street: String; let zip: String? }
    struct Profile: Encodable {
        let name: String
        let tags: [String]
        let active: Bool
        let address: Address
        let nickname: String?
        let scores: [Int]
        let avatar: Data
        let homepage: URL
        let ratio: Double
    }

    static let profile = Profile(
        name: "Ann Smith", tags: ["a", "b"], active: true, address: Address(street: "1 Main St", zip: nil), nickname: nil,
        scores: [], avatar: Data([0xFF, 0x00]), homepage: URL(string: "https://example.com/a?b=c")!, ratio: 0.5)

    @Test("The rules table: nesting, arrays, booleans, nil and empty left out, Data as Base64, URL as its string")
    func defaults() throws {
        let fields = try URLEncodedFormEncoder().encode(Self.profile)
        #expect(fields.map { "\($0.name)=\($0.value)" } == [
            "name=Ann Smith", "tags[]=a", "tags[]=b", "active=1", "address[street]=1 Main St", "avatar=/wA=",
            "homepage=https://example.com/a?b=c", "ratio=0.5",
        ])
        let options = URLEncodedFormEncoder(arrayEncoding: .indexInBrackets, nestingEncoding: .dots, boolEncoding: .literal)
        #expect(try options.encode(Self.profile).map { "\($0.name)=\($0.value)" }.prefix(5) == [
            "name=Ann Smith", "tags[0]=a", "tags[1]=b", "active=true", "address.street=1 Main St",
        ])
        #expect(try URLEncodedFormEncoder(arrayEncoding: .noBrackets).encode(Self.profile).filter { $0.name == "tags" }.map(\.value) == ["a", "b"])
        struct Item: Encodable { let id: Int }
        struct Order: Encodable { let items: [Item]; let notes: [String?]; let empty: [String: Int]; let amount: Decimal }
        let order = Order(items: [Item(id: 1), Item(id: 2)], notes: ["a", nil, "c"], empty: [:], amount: Decimal(string: "12.50") ?? 0)
        #expect(try URLEncodedFormEncoder().encode(order).map { "\($0.name)=\($0.value)" } == [
            "items[][id]=1", "items[][id]=2", "notes[]=a", "notes[]=c", "amount=12.5",
        ])
        // Indexed arrays keep each element's position, so a nil leaves a gap.
        #expect(try URLEncodedFormEncoder(arrayEncoding: .indexInBrackets).encode(order).map(\.name).prefix(4) == ["items[0][id]", "items[1][id]", "notes[0]", "notes[2]"])
    }

    struct Stamped: Encodable { let createdAt: Date; let myURLValue: Int }

    @Test("Dates in each encoding; keys in snake case as JSONEncoder converts them")
    func datesAndKeys() throws {
        let value = Stamped(createdAt: Date(timeIntervalSince1970: 1_700_000_000.25), myURLValue: 1)
        func date(_ encoding: URLEncodedFormEncoder.DateEncoding) throws -> String {
            try URLEncodedFormEncoder(dateEncoding: encoding).encode(value)[0].value
        }
        #expect(try date(.deferredToDate) == "\(Date(timeIntervalSince1970: 1_700_000_000.25).timeIntervalSinceReferenceDate)")
        #expect(try date(.secondsSince1970) == "1700000000.25")
        #expect(try date(.millisecondsSince1970) == "1700000000250")
        #expect(try date(.iso8601) == "2023-11-14T22:13:20Z")
        #expect(try date(.custom { _ in "custom" }) == "custom")
        let snake = try URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase).encode(value).map(\.name)
        let json = try JSONSerialization.jsonObject(with: { () throws -> Data in
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return try encoder.encode(value)
        }()) as? [String: Any]
        #expect(Set(snake) == Set(json?.keys.map { $0 } ?? []))
        #expect(snake == ["created_at", "my_url_value"])
    }

    struct Failing: Encodable {
        func encode(to encoder: any Encoder) throws { throw CancellationError() }
    }

    @Test("A value that is not an object, or whose encoding throws, is a typed encodeError")
    func errors() {
        for attempt in [{ _ = try URLEncodedFormEncoder().encode(["a", "b"]) }, { _ = try URLEncodedFormEncoder().encode(42) },
                        { _ = try URLEncodedFormEncoder().encode(Failing()) },
                        { _ = try URLEncodedFormEncoder(dateEncoding: .custom { _ in throw CancellationError() }).encode(Stamped(createdAt: Date(), myURLValue: 1)) },
                        // Dates ISO 8601 cannot write, whose milliseconds would overflow (they trapped).
                        { _ = try URLEncodedFormEncoder(dateEncoding: .millisecondsSince1970).encode(Stamped(createdAt: Date(timeIntervalSince1970: 1e300), myURLValue: 1)) },
                        { _ = try URLEncodedFormEncoder(dateEncoding: .iso8601).encode(Stamped(createdAt: Date(timeIntervalSince1970: -1e300), myURLValue: 1)) },
                        { _ = try URLEncodedFormEncoder(dateEncoding: .iso8601).encode(Stamped(createdAt: Date(timeIntervalSince1970: .nan), myURLValue: 1)) }]
            as [() throws -> Void] {
            #expect {
                try attempt()
            } throws: { error in
                guard case .request(.encodeError)? = error as? NetworkError else { return false }
                return true
            }
        }
    }

    @Test("A request with a form body, from pairs or a value; query parameters from a value")
    func requests() throws {
        let request = try NetworkRequest(url: "https://example.com/login", form: [("user", "ann"), ("password", "p&ss word")])
        #expect(request.httpMethod == .post)
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.httpBody == Data("user=ann&password=p%26ss+word".utf8))
        let typed = try NetworkRequest(url: "https://example.com/profile", headers: [NetworkHeader(name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8")], formBody: Self.profile)
        #expect(typed.headers.values(for: "Content-Type") == ["application/x-www-form-urlencoded; charset=utf-8"])
        #expect(typed.httpBody.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("name=Ann+Smith&tags%5B%5D=a&tags%5B%5D=b&active=1&address%5Bstreet%5D=1+Main+St") == true)
        struct Search: Encodable { let q: String; let tags: [String] }
        let search = try NetworkRequest(url: "https://example.com/search", query: NetworkQuery.encoding(Search(q: "a b", tags: ["x"])))
        #expect(search.url.absoluteString == "https://example.com/search?q=a%20b&tags%5B%5D=x")
    }

    @Test("Python's urllib.parse.parse_qsl reads back exactly what Net sends, for 500 random forms")
    func pythonReadsRandomForms() async throws {
        var random = SeededGenerator(seed: 0xF0F0)
        let alphabet = ["a", "Z", "0", " ", "+", "&", "=", "%", "%20", "?", "#", "/", ";", "~", "*", "-", ".", "_", "\t", "\n", "\r", "\u{0}",
                        "é", "日本", "🇫🇷", "\u{200B}", "[", "]", "'", "\"", "\\"]
        func text() -> String { (0..<Int.random(in: 0...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined() }
        var forms: [[[String]]] = []
        var bodies: [String] = []
        for _ in 0..<500 {
            let pairs = (0..<Int.random(in: 1...5, using: &random)).map { _ in (name: text(), value: text()) }
            forms.append(pairs.map { [$0.name, $0.value] })
            let request = try NetworkRequest(url: "https://example.com/", form: pairs)
            bodies.append(String(decoding: request.httpBody ?? Data(), as: UTF8.self))
        }
        let script = "import json,sys; from urllib.parse import parse_qsl; print(json.dumps([[list(p) for p in parse_qsl(b, keep_blank_values=True)] for b in json.load(sys.stdin)]))"
        let output = try await runProcessOffPool("/usr/bin/env", ["python3", "-c", script], input: try JSONEncoder().encode(bodies))
        let parsed = try JSONDecoder().decode([[[String]]].self, from: output)
        #expect(parsed.count == forms.count)
        for (index, (sent, read)) in zip(forms, parsed).enumerated() {
            #expect(read == sent, "form \(index): \(bodies[index])")
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
