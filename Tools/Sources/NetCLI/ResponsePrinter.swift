import Foundation
import Net

/// Writes a response the way `net` shows it: the status line, the headers with `-v`, then the body
/// (JSON re-indented; binary bodies held back from a terminal).
public struct ResponsePrinter: Sendable {
    /// Print the response headers.
    public var showsHeaders: Bool
    /// Whether standard output is a terminal (binary bodies are not written to one).
    public var outputIsTerminal: Bool

    /// Creates a printer.
    public init(showsHeaders: Bool, outputIsTerminal: Bool = isatty(STDOUT_FILENO) != 0) {
        self.showsHeaders = showsHeaders
        self.outputIsTerminal = outputIsTerminal
    }

    /// The status line and, with ``showsHeaders``, the headers, each line ending in a newline.
    public func head(_ head: NetworkResponseHead) -> String {
        var text = "HTTP \(head.statusCode)\n"
        if showsHeaders {
            for header in head.headers { text += "\(header.name): \(header.value)\n" }
        }
        return text
    }

    /// The body as `net` prints it: pretty JSON when it is JSON, the bytes as they are otherwise,
    /// and a note instead of binary bytes when the output is a terminal.
    public func body(_ data: Data, head: NetworkResponseHead) -> Data {
        guard !data.isEmpty else { return Data() }
        let mimeType = head.mimeType ?? ""
        if mimeType.isEmpty || mimeType.contains("json"), let pretty = JSONText.prettyPrinted(data) {
            return Data(("\n" + pretty + "\n").utf8)
        }
        let isText = String(data: data, encoding: .utf8).map { !$0.contains("\u{0}") } ?? false
        if !isText && outputIsTerminal {
            return Data("\n(binary body of \(data.count) bytes not shown on a terminal; redirect the output or use --download FILE)\n".utf8)
        }
        var shown = Data("\n".utf8)
        shown.append(data)
        if outputIsTerminal && data.last != UInt8(ascii: "\n") { shown.append(UInt8(ascii: "\n")) }
        return shown
    }
}

/// Writes to a file descriptor in full (standard output and error through `write(2)`, so nothing
/// is buffered behind an exit).
enum Output {
    static func write(_ data: Data, to descriptor: Int32 = STDOUT_FILENO) {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }  // empty: nothing to write
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }

    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        write(Data(text.utf8), to: descriptor)
    }

    static func error(_ text: String) { write(text, to: STDERR_FILENO) }
}
