/// Byte-level percent-encoding (RFC 3986 §2.1), independent of Foundation's rules, which differ
/// between platforms and releases (Foundation on Linux re-encodes `%2B` as `%252B` as soon as a
/// URL string holds any character that needs escaping).
enum PercentEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Characters a query key or value may carry unescaped: they have no meaning inside a
    /// `key=value&…` query and every server decodes them as themselves. `&`, `=`, `+`, `#` and `%`
    /// are not among them: they would change how the query splits or decodes.
    static func isAllowedInQueryComponent(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || "!$'()*,;:@/?".utf8.contains(byte)
    }

    /// Characters that may appear literally anywhere in a URL (unreserved, gen-delims, sub-delims).
    static func isAllowedInURL(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || ":/?#[]@!$&'()*+,;=".utf8.contains(byte)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool { hexValue(byte) != nil }

    /// Encodes every byte of `string` that `isAllowed` rejects, including `%` itself.
    static func encode(_ string: String, allowing isAllowed: (UInt8) -> Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isAllowed(byte) {
                output.append(byte)
            } else {
                appendEscape(of: byte, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Escapes the bytes that may not appear in a URL, but keeps existing `%XX` escapes byte for
    /// byte; a `%` that starts no valid escape becomes `%25`.
    static func escapeInvalidURLCharacters(_ string: String) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
            {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            }
            if isAllowedInURL(byte) {
                output.append(byte)
            } else {
                appendEscape(of: byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; invalid escapes are kept as they are. Used to compare query keys.
    static func decode(_ string: Substring) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
    }
}
