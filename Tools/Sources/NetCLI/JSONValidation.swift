import Foundation

/// Whether bytes are one JSON value (RFC 8259), checked in one pass without building anything,
/// so a hostile body costs no memory beyond its own bytes (`JSONSerialization` would build every
/// container first). Nesting past `maximumDepth` counts as not JSON: the caller prints such a
/// body as it came.
struct JSONValidation {
    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var index = 0

    /// Whether `data` is UTF-8 text holding exactly one JSON value, nested at most `maximumDepth`.
    static func isJSON(_ data: Data, maximumDepth: Int) -> Bool {
        guard String(data: data, encoding: .utf8) != nil else { return false }
        var validation = JSONValidation(bytes: [UInt8](data), maximumDepth: maximumDepth)
        validation.skipWhitespace()
        guard validation.value(depth: 0) else { return false }
        validation.skipWhitespace()
        return validation.index == validation.bytes.count
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        index += 1
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        guard let current else { return false }
        switch current {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth)
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    /// An object (`keyed`: `"key": value` members) or an array, after its opening bracket.
    private mutating func container(close: UInt8, keyed: Bool, depth: Int) -> Bool {
        guard depth < maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if consume(close) { return true }
        while true {
            if keyed {
                guard string() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
            }
            guard value(depth: depth + 1) else { return false }
            skipWhitespace()
            if consume(close) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
            skipWhitespace()
        }
    }

    private mutating func string() -> Bool {
        guard consume(UInt8(ascii: "\"")) else { return false }
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case 0..<0x20: return false
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return false }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let digit = current, Self.isHexDigit(digit) else { return false }
                        index += 1
                    }
                } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                    return false
                }
            default: continue
            }
        }
        return false
    }

    private mutating func number() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard digits() else { return false }
        }
        if consume(UInt8(ascii: ".")), !digits() { return false }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits() else { return false }
        }
        return true
    }

    /// One or more decimal digits.
    private mutating func digits() -> Bool {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start
    }

    private mutating func literal(_ word: String) -> Bool {
        for byte in word.utf8 {
            guard consume(byte) else { return false }
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
