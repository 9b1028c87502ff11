#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `Set-Cookie` field value, parsed by RFC 6265 §5.2 (with RFC 6265bis's size limits): the
/// name, the value and the attributes the jar understands; unknown attributes are ignored.
struct SetCookie: Equatable {
    var name: String
    var value: String
    var expires: Date?
    /// `Max-Age` in seconds; zero or less expires the cookie at once.
    var maxAge: Int64?
    var domain: String?
    var path: String?
    var secure = false
    var httpOnly = false
    var sameSite: NetworkCookie.SameSite?

    /// The most bytes of name and value together, and of one attribute value (RFC 6265bis §5.6).
    static let maximumNameValueBytes = 4096
    static let maximumAttributeBytes = 1024

    /// `nil` when the field sets no cookie: no `=`, an empty name, or too large.
    init?(_ field: String) {
        let sections = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = sections.first, let equals = pair.firstIndex(of: "=") else { return nil }
        name = NetworkHeader.trimmingOptionalWhitespace(String(pair[..<equals]))
        value = NetworkHeader.trimmingOptionalWhitespace(String(pair[pair.index(after: equals)...]))
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameValueBytes,
              !(name + value).unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
        else { return nil }
        for section in sections.dropFirst() {
            let equals = section.firstIndex(of: "=")
            let key = NetworkHeader.trimmingOptionalWhitespace(String(section[..<(equals ?? section.endIndex)])).lowercased()
            let argument = equals.map { NetworkHeader.trimmingOptionalWhitespace(String(section[section.index(after: $0)...])) } ?? ""
            guard argument.utf8.count <= Self.maximumAttributeBytes else { continue }
            switch key {
            case "expires":
                if let date = CookieDate.parse(argument) { expires = date }
            case "max-age":
                if let seconds = Self.deltaSeconds(argument) { maxAge = seconds }
            case "domain":
                // One leading dot is dropped; an empty domain leaves the attribute unset.
                let name = argument.hasPrefix(".") ? String(argument.dropFirst()) : argument
                guard !name.isEmpty else { continue }
                domain = name.lowercased()
            case "path":
                path = argument.hasPrefix("/") ? argument : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            case "samesite":
                sameSite = NetworkCookie.SameSite(rawValue: argument.lowercased())
            default:
                continue
            }
        }
    }

    /// `Max-Age`'s value: an optional `-` and digits; saturates instead of overflowing.
    private static func deltaSeconds(_ text: String) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let magnitude = digits.utf8.reduce(Int64(0)) { total, byte in
            let (times, overflow) = total.multipliedReportingOverflow(by: 10)
            return overflow ? Int64.max : min(Int64.max - 9, times) + Int64(byte - 0x30)
        }
        return negative ? -magnitude : magnitude
    }
}

extension SetCookie {
    /// The `Set-Cookie` fields in one header value. A transport that holds headers in a dictionary
    /// (URLSession) joins repeated fields with `, `, and `Expires` dates hold a comma too: a comma
    /// starts a new field only when what follows it, up to the next `;` or `,`, is `name=`.
    static func fields(in value: String) -> [String] {
        var fields: [String] = []
        var current = Substring(value)
        var searchStart = current.startIndex
        while let comma = current[searchStart...].firstIndex(of: ",") {
            let rest = current[current.index(after: comma)...]
            let candidate = rest.prefix { $0 != ";" && $0 != "," }
            if let equals = candidate.firstIndex(of: "="), isToken(candidate[..<equals]) {
                fields.append(String(current[..<comma]))
                current = rest
                searchStart = current.startIndex
            } else {
                searchStart = current.index(after: comma)
            }
        }
        fields.append(String(current))
        return fields.filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// A cookie name as RFC 6265 allows it (an RFC 9110 token), surrounding spaces aside.
    private static func isToken(_ text: Substring) -> Bool {
        let name = NetworkHeader.trimmingOptionalWhitespace(String(text))
        let separators = Set("()<>@,;:\\\"/[]?={} \t".unicodeScalars)
        return !name.isEmpty && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !separators.contains($0) }
    }
}
