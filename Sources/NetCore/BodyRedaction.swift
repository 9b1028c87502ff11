#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials inside bodies Net shows (HAR recordings, curl commands, logged requests): the
/// values of well-known credential keys (`access_token`, `refresh_token`, `password`,
/// `client_secret`…, and the request's secret query keys) in form bodies, in JSON objects, which
/// an OAuth token request or response carries, and in the fields of a multipart form.
package enum BodyRedaction {
    /// `text` with credential values replaced, by the body's media type.
    package static func redacting(_ text: String, contentType: String?, keys: Set<String>) -> String {
        guard let contentType else { return text }
        if mentions(contentType, "multipart/form-data") {
            return multipartBoundaries(in: contentType).reduce(text) { redactingMultipart($0, boundary: $1, keys: keys) }
        }
        if mentions(contentType, "x-www-form-urlencoded") { return NetworkRedaction.redactedQuery(text[...], exactKeys: keys) }
        if mentions(contentType, "json") { return redactingJSON(text, keys: keys) }
        return text
    }

    /// Whether `contentType` holds `word`, in any case, compared as bytes (so a combining mark
    /// after the word does not hide it). `word` must be lowercase ASCII and not empty. Byte by
    /// byte because `String.contains` allocated on every search, an empty type's included, for
    /// every body a HAR recorder keeps.
    package static func mentions(_ contentType: String, _ word: StaticString) -> Bool {
        assert(word.utf8CodeUnitCount > 0, "an empty word is in every type")
        let needle = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        var type = contentType
        return type.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            return (0...(bytes.count - needle.count)).contains { start in
                (0..<needle.count).allSatisfy { offset in
                    let byte = bytes[start + offset]
                    return (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == needle[offset]
                }
            }
        }
    }

    /// JSON text with the value of every member named in `keys` replaced by `"REDACTED"`, at any
    /// depth, when it is a string, a number or a literal (an object or array value is scanned on).
    /// A scanner, not a parser: the text is kept byte for byte elsewhere, and text that is not
    /// JSON comes out with at most some string values replaced.
    package static func redactingJSON(_ text: String, keys: Set<String>) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var lastString: String?
        var redactsNextString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var end = index + 1
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                let close = min(end, bytes.count - 1)
                if redactsNextString {
                    output += Array("\"\(NetworkRedaction.placeholder)\"".utf8)
                    lastString = nil
                } else {
                    output += bytes[index...close]
                    // A key is matched as a JSON reader reads it: `pass\u0077ord` is `password`.
                    lastString = decodedJSONString(bytes[(index + 1)..<max(index + 1, min(end, bytes.count))])
                }
                redactsNextString = false
                index = close + 1
                continue
            }
            switch byte {
            case UInt8(ascii: ":"):
                redactsNextString = lastString.map { NetworkRedaction.isCredentialKey($0, in: keys) } ?? false
                lastString = nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                lastString = nil
                redactsNextString = false
            default:
                lastString = nil
                if redactsNextString {
                    // A number or literal: everything up to the next delimiter.
                    var end = index
                    while end < bytes.count, !Self.endsScalar(bytes[end]) { end += 1 }
                    output += Array("\"\(NetworkRedaction.placeholder)\"".utf8)
                    redactsNextString = false
                    index = end
                    continue
                }
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The text of a JSON string's contents (between its quotes) with its escapes decoded; an
    /// escape that is not JSON's is kept as written.
    static func decodedJSONString(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []  // unescaped bytes, decoded as UTF-8 when an escape or the end comes
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.endIndex else {
                raw.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            let simple: UInt8? = switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
            if let simple {
                raw.append(simple)
                index += 2
            } else if escaped == UInt8(ascii: "u"), let unit = hexUnit(bytes, at: index + 2) {
                flush()
                index += 6
                if UTF16.isLeadSurrogate(unit), index + 1 < bytes.endIndex, bytes[index] == UInt8(ascii: "\\"),
                   bytes[index + 1] == UInt8(ascii: "u"), let trail = hexUnit(bytes, at: index + 2), UTF16.isTrailSurrogate(trail) {
                    scalars.append(contentsOf: String(decoding: [unit, trail], as: UTF16.self).unicodeScalars)
                    index += 6
                } else {
                    scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")  // a lone surrogate, as JSON readers replace it
                }
            } else {
                raw.append(byte)
                index += 1
            }
        }
        flush()
        return String(scalars)
    }

    /// The four hex digits at `start`, as a UTF-16 code unit.
    private static func hexUnit(_ bytes: ArraySlice<UInt8>, at start: Int) -> UInt16? {
        guard start + 4 <= bytes.endIndex else { return nil }
        var unit: UInt16 = 0
        for byte in bytes[start..<(start + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\t"),
         UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(byte)
    }
}
