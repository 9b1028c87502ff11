import Foundation
import Net
@testable import NetCLI
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

    @Test("on a terminal, control characters in text (escape sequences) are written as ?; to a pipe, as they came")
    func escapeSequences() throws {
        // Retitles the window, writes the clipboard, clears the screen.
        let hostile = Data("a\u{1B}]0;owned\u{07}b\u{1B}]52;c;eA==\u{07}\u{1B}[2J\tc\r\n".utf8)
        let onTerminal = ResponsePrinter(showsHeaders: false, outputIsTerminal: true, bodyOnly: true)
        #expect(String(decoding: onTerminal.body(hostile, head: try Self.head("text/plain")), as: UTF8.self) == "a?]0;owned?b?]52;c;eA==??[2J\tc\r\n")
        #expect(onTerminal.terminalSafe("x\u{1B}[31my\u{7F}") == "x?[31my?")  // a streamed chunk or event line
        #expect(onTerminal.terminalSafe("a\u{9B}31mb \u{E9}\u{A9}") == "a?31mb \u{E9}\u{A9}")  // a C1 CSI goes, é and © stay
        // A stray C2 before one: the CSI still goes; a C2 that ends a chunk may start one in the next.
        #expect(onTerminal.terminalSafe(Data([0x61, 0xC2, 0xC2, 0x9B])) == Data([0x61, 0xC2, UInt8(ascii: "?")]))
        #expect(onTerminal.terminalSafe(Data([0x61, 0xC2])) == Data([0x61, UInt8(ascii: "?")]))
        // Pretty-printed JSON, whose strings may hold C1 controls raw.
        let json = ResponsePrinter(showsHeaders: false, outputIsTerminal: true).body(Data("{\"a\":\"x\u{9B}2J\"}".utf8), head: try Self.head("application/json"))
        #expect(!json.contains(0x9B) && String(decoding: json, as: UTF8.self).contains("x?2J"), "\(String(decoding: json, as: UTF8.self))")
        let piped = ResponsePrinter(showsHeaders: false, outputIsTerminal: false, bodyOnly: true)
        #expect(piped.body(hostile, head: try Self.head("text/plain")) == hostile)
    }

    @Test("an argument that is not UTF-8 is named as a usage error; UTF-8 ones pass")
    func nonUTF8Arguments() {
        #expect(NetCommand.nonUTF8ArgumentMessage([Array("get".utf8), Array("caf\u{E9}".utf8)]) == nil)
        let message = NetCommand.nonUTF8ArgumentMessage([Array("get".utf8), [0x63, 0x61, 0x66, 0xE9]])
        #expect(message?.hasPrefix("argument 2 (caf\u{FFFD}) is not UTF-8") == true, "\(String(describing: message))")
    }
}

/// How `net` reads the small local files it is given (`--session`, `--cacert`, `--cert`, `--key`).
@Suite("net: local files given on the command line")
struct LocalFileTests {
    @Test("a pipe is read to its end where a certificate or key may come from one (<(vault read …)); elsewhere it is a usage error, as /dev/zero is")
    func pipes() async throws {
        let scratch = try ScratchDirectory()
        let fifo = scratch.path("key.pem")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer opens the pipe once the reader does, writes, and closes it: the end.
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            _ = "-----BEGIN KEY-----\n".withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
        }
        writer.start()
        let read = try LocalFile.read(fifo, option: "--key", allowingPipes: true)
        #expect(read.map { String(decoding: $0, as: UTF8.self) } == "-----BEGIN KEY-----\n")
        #expect(throws: UsageError.self) { try LocalFile.read("/dev/zero", option: "--cacert", allowingPipes: true) }
        #expect(throws: UsageError.self) { try LocalFile.read(fifo, option: "--session") }  // never waits for a writer
        #expect(try LocalFile.read(scratch.path("missing.json"), option: "--session") == nil)
    }
}
