import Foundation
import Net
import NetCLI
import Testing

/// What `net` prints of a body, on a terminal and not (Docs/CLI.md's output rules).
@Suite("net: how a body is printed")
struct ResponsePrinterTests {
    static func head(_ contentType: String) throws -> NetworkResponseHead {
        NetworkResponseHead(statusCode: 200, headers: try NetworkHeaders([NetworkHeader(name: "Content-Type", value: contentType)]),
                            url: try #require(URL(string: "http://example.com/")))
    }

    @Test("binary bytes become a one-line note on a terminal and are written as they are elsewhere; text is written either way")
    func binaryOnATerminal() throws {
        let binary = Data([0x00, 0xFF, 0x10, 0x80, 0x00])
        let onTerminal = ResponsePrinter(showsHeaders: false, outputIsTerminal: true).body(binary, head: try Self.head("application/octet-stream"))
        let note = String(decoding: onTerminal, as: UTF8.self)
        #expect(note.contains("binary body of 5 bytes not shown") && note.filter { $0 == "\n" }.count == 2, "\(note)")
        let piped = ResponsePrinter(showsHeaders: false, outputIsTerminal: false).body(binary, head: try Self.head("application/octet-stream"))
        #expect(piped.suffix(5) == binary)
        let text = ResponsePrinter(showsHeaders: false, outputIsTerminal: true).body(Data("plain text".utf8), head: try Self.head("text/plain"))
        #expect(String(decoding: text, as: UTF8.self) == "\nplain text\n")
    }
}
