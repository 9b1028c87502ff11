#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Credentials inside bodies Net shows (HAR recordings, curl commands, logged requests): the
/// values of well-known credential keys (`access_token`, `refresh_token`, `password`,
/// `client_secret`…, and the request's secret query keys) in form bodies and in JSON objects,
/// which an OAuth token request or response carries.
package enum BodyRedaction {
    /// `text` with credential values replaced, by the body's media type.
    package static func redacting(_ text: String, contentType: String?, keys: Set<String>) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") { return NetworkRedaction.redactedQuery(text[...], exactKeys: keys) }
        if type.contains("json") { return redactingJSON(text, keys: keys) }
        return text
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
                    lastString = String(decoding: bytes[(index + 1)..<max(index + 1, min(end, bytes.count))], as: UTF8.self)
                }
                redactsNextString = false
                index = close + 1
                continue
            }
            switch byte {
            case UInt8(ascii: ":"):
                redactsNextString = lastString.map { keys.contains($0.lowercased()) } ?? false
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

    private static func endsScalar(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\t"),
         UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(byte)
    }
}
