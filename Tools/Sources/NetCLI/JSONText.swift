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

    /// `data` indented by two spaces per level, or `nil` when it is not JSON.
    public static func prettyPrinted(_ data: Data) -> String? {
        guard (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        var output = ""
        output.reserveCapacity(text.utf8.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var justOpened = false
        func newline() { output += "\n" + String(repeating: "  ", count: depth) }
        for character in text {
            if inString {
                output.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            if character.isWhitespace { continue }
            if justOpened {
                justOpened = false
                if character == "}" || character == "]" {  // `{}` and `[]` stay on one line
                    depth -= 1
                    output.append(character)
                    continue
                }
                newline()
            }
            switch character {
            case "{", "[":
                output.append(character)
                depth += 1
                justOpened = true
            case "}", "]":
                depth -= 1
                newline()
                output.append(character)
            case ",":
                output.append(character)
                newline()
            case ":":
                output += ": "
            case "\"":
                inString = true
                output.append(character)
            default:
                output.append(character)
            }
        }
        return output
    }
}
