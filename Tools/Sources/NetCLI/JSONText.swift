import Foundation

/// JSON written and re-indented as text, so keys keep the server's order and numbers keep their
/// digits (decoding into dictionaries and `Double`s would lose both).
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Bodies larger than this are printed as they are: checking and re-indenting them would cost
    /// more than it helps to read them.
    public static let prettyPrintingSizeLimit = 8 << 20
    /// Nesting deeper than this is printed as it is: no human reads level 64.
    public static let prettyPrintingDepthLimit = 64
    /// Indentation stops growing at this depth, so one line never starts with more than 2 × this
    /// many spaces.
    public static let indentationDepthCap = 16

    /// `data` indented by two spaces per level, or `nil` when it is not JSON or when
    /// re-indenting it would cost too much: a body over ``prettyPrintingSizeLimit``, nesting past
    /// ``prettyPrintingDepthLimit``, or output past four times the body (plus 4 KiB). So a hostile
    /// body cannot turn into gigabytes of output; the caller prints it raw instead.
    public static func prettyPrinted(_ data: Data) -> String? {
        guard data.count <= prettyPrintingSizeLimit, JSONValidation.isJSON(data, maximumDepth: prettyPrintingDepthLimit) else {
            return nil
        }
        let budget = 4 * data.count + 4_096
        var output: [UInt8] = []
        output.reserveCapacity(min(budget, 2 * data.count + 64))
        var depth = 0
        var inString = false
        var escaped = false
        var justOpened = false
        func newline() {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * min(depth, indentationDepthCap)))
        }
        for byte in data {
            if inString {
                output.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            default: break
            }
            if justOpened {
                justOpened = false
                if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {  // `{}` and `[]` stay on one line
                    depth -= 1
                    output.append(byte)
                    continue
                }
                newline()
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                output.append(byte)
                depth += 1
                guard depth <= prettyPrintingDepthLimit else { return nil }
                justOpened = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline()
            case UInt8(ascii: ":"):
                output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            case UInt8(ascii: "\""):
                inString = true
                output.append(byte)
            default:
                output.append(byte)
            }
            guard output.count <= budget else { return nil }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
