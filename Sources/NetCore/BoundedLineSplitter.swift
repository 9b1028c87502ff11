/// Splits a byte stream that arrives in chunks into lines, holding at most `maximumLength` bytes of
/// an unfinished line: the one line reader behind Server-Sent Events and JSON Lines.
///
/// A line that lies whole inside one chunk is handed over in place, without a copy; only a line
/// that spans chunks is gathered. Where the chunks are cut never changes the lines.
struct BoundedLineSplitter: Sendable {
    /// Which bytes end a line.
    enum Breaks: Sendable {
        /// CR, LF or CRLF, as in Server-Sent Events (a CR at the end of one chunk and the LF at
        /// the start of the next are one break).
        case anyNewline
        /// LF only, as in JSON Lines (a CR before it stays part of the line, for JSON to ignore
        /// as whitespace).
        case lineFeed
    }

    let breaks: Breaks
    let maximumLength: Int
    /// The start of a line that the chunks so far did not finish.
    private var pending: [UInt8] = []
    /// The last break was a CR, so an LF that comes next belongs to it.
    private var afterCarriageReturn = false

    init(breaks: Breaks, maximumLength: Int) {
        self.breaks = breaks
        self.maximumLength = maximumLength
    }

    /// Moves this splitter out of `stored`, leaving an empty one there (no allocation), so the
    /// caller can split while mutating what holds it, and `pending` has one owner: appending to a
    /// long unfinished line never copies it. Put it back with `stored = splitter` when done.
    static func take(_ stored: inout BoundedLineSplitter) -> BoundedLineSplitter {
        let splitter = stored
        stored = BoundedLineSplitter(breaks: splitter.breaks, maximumLength: 0)
        return splitter
    }

    /// Calls `line` with each line that `bytes` completes, without its break, in order. Throws
    /// ``NetworkError/StreamFailure/lineTooLong(limit:)`` as soon as a line is longer than
    /// `maximumLength`, whether or not its end has arrived (after the lines before it).
    mutating func split(_ bytes: UnsafeRawBufferPointer, _ line: (UnsafeRawBufferPointer) throws -> Void) throws {
        let count = bytes.count
        var start = 0
        if afterCarriageReturn, count > 0 {
            afterCarriageReturn = false
            if bytes[0] == lineFeed { start = 1 }
        }
        while start < count {
            var end = start
            switch breaks {
            case .anyNewline:
                while end < count, bytes[end] != lineFeed, bytes[end] != carriageReturn { end += 1 }
            case .lineFeed:
                while end < count, bytes[end] != lineFeed { end += 1 }
            }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            guard pending.count + segment.count <= maximumLength else {
                throw NetworkError.stream(.lineTooLong(limit: maximumLength))
            }
            guard end < count else {
                pending.append(contentsOf: segment)
                return
            }
            if pending.isEmpty {
                try line(segment)
            } else {
                pending.append(contentsOf: segment)
                try pending.withUnsafeBytes { try line($0) }
                pending.removeAll(keepingCapacity: pending.count <= 64 * 1024)
            }
            start = end + 1
            if bytes[end] == carriageReturn {
                if start < count {
                    if bytes[start] == lineFeed { start += 1 }
                } else {
                    afterCarriageReturn = true
                }
            }
        }
    }

    /// The unfinished last line, if any bytes of one arrived (JSON Lines allows a last line
    /// without a break; Server-Sent Events drops it). Clears it.
    mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        return pending.isEmpty ? nil : pending
    }
}

private let lineFeed: UInt8 = 0x0A
private let carriageReturn: UInt8 = 0x0D
