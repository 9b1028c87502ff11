import Foundation
import NetCLI
import Testing

@Suite("Command-line items and output formatting")
struct ItemParsingTests {
    @Test("Each separator gives its kind; the earliest wins, and the longer at a tie", arguments: [
        ("X-Trace:abc", RequestItem.header(name: "X-Trace", value: "abc")),
        ("X-Time:12:00", .header(name: "X-Time", value: "12:00")),
        ("Empty:", .header(name: "Empty", value: "")),
        ("q==a b&c", .query(key: "q", value: "a b&c")),
        ("url==http://x/?a=1", .query(key: "url", value: "http://x/?a=1")),
        ("name=Ann", .field(name: "name", value: "Ann")),
        ("email=a@b.c", .field(name: "email", value: "a@b.c")),
        ("eq=a==b", .field(name: "eq", value: "a==b")),
        ("age:=41", .jsonField(name: "age", json: "41")),
        ("tags:=[\"a\",\"b\"]", .jsonField(name: "tags", json: "[\"a\",\"b\"]")),
        ("file@/tmp/a b.txt", .file(name: "file", path: "/tmp/a b.txt")),
        ("a\\=b=c", .field(name: "a=b", value: "c")),
        ("a\\:b:c", .header(name: "a:b", value: "c")),
        ("mail\\@home=x", .field(name: "mail@home", value: "x")),
    ])
    func parses(_ argument: String, _ expected: RequestItem) throws {
        #expect(try RequestItem(parsing: argument) == expected)
    }

    @Test("No separator or an empty key is a usage error that quotes the item", arguments: ["plain", "=value", ":value", "==q", "@file"])
    func rejects(_ argument: String) {
        #expect {
            try RequestItem(parsing: argument)
        } throws: { error in
            (error as? UsageError)?.description.contains("\"\(argument)\"") == true
        }
    }

    @Test("JSON is re-indented with the server's key order and number digits kept")
    func prettyJSON() throws {
        let compact = #"{"b":1.50,"a":[1,{"x":"{[,:]}\"q"},[]],"e":{},"n":null}"#
        let pretty = try #require(JSONText.prettyPrinted(Data(compact.utf8)))
        #expect(pretty == """
            {
              "b": 1.50,
              "a": [
                1,
                {
                  "x": "{[,:]}\\"q"
                },
                []
              ],
              "e": {},
              "n": null
            }
            """)
        #expect(JSONText.prettyPrinted(Data("{not json".utf8)) == nil)
        #expect(JSONText.prettyPrinted(Data("\"text\"".utf8)) == "\"text\"")
    }

    @Test("pretty-printing is bounded: over 8 MiB or 64 levels printed as it came, output at most 4x + 4 KiB, indentation capped at 16 levels")
    func prettyPrintingBounds() throws {
        // 8 MiB of valid JSON is indented; one byte more is not.
        let atLimit = "[" + String(repeating: " ", count: JSONText.prettyPrintingSizeLimit - 2) + "]"
        #expect(JSONText.prettyPrinted(Data(atLimit.utf8)) != nil)
        #expect(JSONText.prettyPrinted(Data((atLimit + " ").utf8)) == nil)
        // 64 levels are indented, 65 are not.
        let nested = { (depth: Int) in String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        #expect(JSONText.prettyPrinted(Data(nested(64).utf8)) != nil)
        #expect(JSONText.prettyPrinted(Data(nested(65).utf8)) == nil)
        // A costly shape within both limits: 60 levels of arrays, repeated to 1 MB. Indented, each
        // bracket would take a line of up to 32 spaces, far past four times the body: it comes
        // back raw (nil). Five levels of the same stay within the budget and are indented.
        let deep = "[" + Array(repeating: nested(60), count: 1_000_000 / 121).joined(separator: ",") + "]"
        #expect(JSONText.prettyPrinted(Data(deep.utf8)) == nil)
        let shallow = "[" + Array(repeating: "[1,[2]]", count: 1_000).joined(separator: ",") + "]"
        let indentedShallow = try #require(JSONText.prettyPrinted(Data(shallow.utf8)))
        #expect(indentedShallow.utf8.count <= 4 * shallow.utf8.count + 4_096)
        // Indentation stops at 16 levels: no line of 40 levels starts with more than 32 spaces.
        let forty = String(repeating: "[1,", count: 40) + "1" + String(repeating: "]", count: 40)
        let indented = try #require(JSONText.prettyPrinted(Data(forty.utf8)))
        let lines: [Substring] = indented.split(separator: "\n")
        let widest = lines.map { line in line.prefix { $0 == " " }.count }.max() ?? 0
        #expect(widest == 2 * JSONText.indentationDepthCap, "\(widest) spaces")
    }

    @Test("JSON string literals escape quotes, backslashes and control characters")
    func quoting() throws {
        let text = "a\"b\\c\nd\u{1}é"
        let literal = JSONText.quoted(text)
        #expect(literal == #""a\"b\\c\nd\u0001é""#)
        #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == text)
    }
}
