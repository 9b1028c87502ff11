import Foundation
import Net

/// Writes a response the way `net` shows it: the status line, the headers with `-v`, then the body
/// (JSON re-indented; binary bodies held back from a terminal); with `--body`, the body alone, as
/// it came.
public struct ResponsePrinter: Sendable {
    /// Print the response headers.
    public var showsHeaders: Bool
    /// Whether standard output is a terminal (binary bodies are not written to one).
    public var outputIsTerminal: Bool
    /// Print the body only, byte for byte (`--body`): no status line, no re-indenting.
    public var bodyOnly: Bool

    /// Creates a printer.
    public init(showsHeaders: Bool, outputIsTerminal: Bool = isatty(STDOUT_FILENO) != 0, bodyOnly: Bool = false) {
        self.showsHeaders = showsHeaders
        self.outputIsTerminal = outputIsTerminal
        self.bodyOnly = bodyOnly
    }

    /// The status line and, with ``showsHeaders``, the headers, each line ending in a newline;
    /// nothing with ``bodyOnly``.
    public func head(_ head: NetworkResponseHead) -> String {
        guard !bodyOnly else { return "" }
        var text = "HTTP \(head.statusCode)\n"
        if showsHeaders {
            for header in head.headers { text += "\(terminalSafe(header.name)): \(terminalSafe(header.value))\n" }
        }
        return text
    }

    /// The body as `net` prints it: pretty JSON when it is JSON, the bytes as they are otherwise,
    /// and a note instead of binary bytes when the output is a terminal.
    public func body(_ data: Data, head: NetworkResponseHead) -> Data {
        guard !data.isEmpty else { return Data() }
        // Only a terminal is kept from binary bytes: the body is decoded to tell only for one.
        let isBinaryOnTerminal = { outputIsTerminal && !(String(data: data, encoding: .utf8).map { !$0.contains("\u{0}") } ?? false) }
        if bodyOnly { return isBinaryOnTerminal() ? Self.binaryNote(data) : terminalSafe(data) }
        let mimeType = head.mimeType ?? ""
        if mimeType.isEmpty || mimeType.contains("json"), let pretty = JSONText.prettyPrinted(data) {
            return terminalSafe(Data(("\n" + pretty + "\n").utf8))  // JSON strings may hold C1 controls
        }
        if isBinaryOnTerminal() { return Data("\n".utf8) + Self.binaryNote(data) }
        var shown = Data("\n".utf8)
        shown.append(terminalSafe(data))
        if outputIsTerminal && data.last != UInt8(ascii: "\n") { shown.append(UInt8(ascii: "\n")) }
        return shown
    }

    /// `data` as it may reach the output: on a terminal, control characters other than tab, line
    /// feed and carriage return, C1 controls included (ESC above all, which starts the sequences that retitle the
    /// window, write the clipboard or redraw the screen) become `?`, so a server's text cannot
    /// drive the terminal; to a file or a pipe, the bytes as they came.
    public func terminalSafe(_ data: Data) -> Data {
        guard outputIsTerminal, data.contains(where: { Self.isControl($0) || $0 == 0xC2 }) else { return data }
        let bytes = [UInt8](data)
        var safe = Data(capacity: bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0xC2 else {
                safe.append(Self.isControl(byte) ? UInt8(ascii: "?") : byte)
                continue
            }
            // U+0080–U+009F, C1 controls (U+009B is CSI to xterm), are C2 80–C2 9F in UTF-8. A C2
            // that ends the data may start one in the next chunk: it goes as `?` too.
            guard index < bytes.count else { safe.append(UInt8(ascii: "?")); break }
            let next = bytes[index]
            if (0x80...0x9F).contains(next) {
                safe.append(UInt8(ascii: "?"))
                index += 1
            } else if (0xA0...0xBF).contains(next) {
                safe.append(contentsOf: [byte, next])  // a printable character (©, a no-break space)
                index += 1
            } else {
                safe.append(byte)  // not a character's start: the next byte is judged on its own
            }
        }
        return safe
    }

    /// `text` as ``terminalSafe(_:)-(Data)`` writes it.
    public func terminalSafe(_ text: String) -> String {
        guard outputIsTerminal, text.utf8.contains(where: { Self.isControl($0) || $0 == 0xC2 }) else { return text }
        return String(decoding: terminalSafe(Data(text.utf8)), as: UTF8.self)
    }

    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
    }

    private static func binaryNote(_ data: Data) -> Data {
        Data("(binary body of \(data.count) bytes not shown on a terminal; redirect the output with --body, or use --download FILE)\n".utf8)
    }
}

/// Standard output could not take what `net` wrote (a full disk, a closed descriptor…): the
/// output is incomplete, so `net` stops and exits 1 rather than 0.
struct OutputError: Error, CustomStringConvertible {
    /// `strerror`'s text for the failed `write(2)`.
    let reason: String

    var description: String { "cannot write to standard output: \(reason)" }
}

/// Writes to a file descriptor in full (standard output and error through `write(2)`, so nothing
/// is buffered behind an exit).
enum Output {
    /// Writes `data` to standard output; throws if it cannot all be written.
    static func write(_ data: Data) throws {
        if let failure = writeAll(data, to: STDOUT_FILENO) {
            throw OutputError(reason: String(cString: strerror(failure)))
        }
    }

    /// Writes `text` to standard output as UTF-8; throws if it cannot all be written.
    static func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// Writes `text` to standard error. A failure there is not reported: there is nowhere left to
    /// report it, and the exit status still tells the outcome.
    static func error(_ text: String) { _ = writeAll(Data(text.utf8), to: STDERR_FILENO) }

    /// Writes all of `data`, retrying interrupted and partial writes; returns `errno` on failure.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }  // empty: nothing to write
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK {
                        // A non-blocking descriptor inherited from the shell: wait until it takes more.
                        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&ready, 1, -1)
                        continue
                    }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}
