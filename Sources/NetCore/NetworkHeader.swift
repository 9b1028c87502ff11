/// One header field: a name and a value.
///
/// Building a field never fails, so arrays such as `[.header(key: "Accept", value: "text/plain")]`
/// read as they do in ALTENNetwork. The field is checked when it enters ``NetworkHeaders`` (and so
/// when a ``NetworkRequest`` is built): a name that is not an HTTP token, or a value holding CR,
/// LF, NUL or another control character, is rejected with
/// ``NetworkError/RequestFailure/invalidHeader(name:reason:)`` so no input can inject a header.
public struct NetworkHeader: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The field name, as given (lookups ignore case).
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Creates a field; ALTENNetwork's spelling of ``init(name:value:)``.
    public init(key: String, value: String) {
        self.init(name: key, value: value)
    }

    /// Creates a field; ALTENNetwork's spelling.
    public static func header(key: String, value: String) -> NetworkHeader {
        NetworkHeader(name: key, value: value)
    }

    /// ALTENNetwork's name for ``name``.
    public var key: String { name }

    /// `Name: value`, with a credential's value redacted (`Authorization: Bearer REDACTED`).
    public var description: String { "\(name): \(shownValue)" }

    /// The value as text may show it: a credential's redacted.
    private var shownValue: String {
        NetworkRedaction.isSensitiveHeader(name) ? NetworkRedaction.redactedCredential(value) : value
    }

    /// Returns the field with surrounding spaces and tabs removed from its value, or throws when
    /// the name or value is not allowed on the wire.
    public func validated() throws -> NetworkHeader {
        guard !name.isEmpty else {
            throw NetworkError.request(.invalidHeader(name: name, reason: .emptyName))
        }
        // Scanned as UTF-8 bytes (every field of every request and response passes here): token
        // bytes and the forbidden controls are all ASCII, and in UTF-8 a byte below 0x80 is
        // always that ASCII character. A bad name's scalars are read only to name what is wrong.
        if !HTTPToken.isValid(name),
           let bad = name.unicodeScalars.first(where: { !$0.isASCII || !HTTPToken.isTokenByte(UInt8($0.value)) }) {
            throw NetworkError.request(.invalidHeader(name: name, reason: .invalidNameCharacter(bad)))
        }
        // Over the contiguous bytes where the string has them (native strings do): iterating the
        // UTF-8 view index by index, and reading its `last`, cost several times as much.
        let scan = value.utf8.withContiguousStorageIfAvailable(HeaderValueScan.init) ?? HeaderValueScan(Array(value.utf8))
        switch scan {
        case .clean:
            return self  // the common case, without a copy
        case .hasEdgeWhitespace:
            return NetworkHeader(name: name, value: NetworkHeader.trimmingOptionalWhitespace(value))
        case .forbiddenByte(let byte):
            // An ASCII byte in UTF-8 is always that scalar.
            throw NetworkError.request(.invalidHeader(name: name, reason: .forbiddenValueCharacter(Unicode.Scalar(byte))))
        }
    }

    /// Whether a value may not hold `scalar` (``HeaderValueScan/isForbidden(_:)``: a control
    /// other than tab, or DEL).
    package static func isForbiddenInValue(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && HeaderValueScan.isForbidden(UInt8(scalar.value))
    }

    package static func trimmingOptionalWhitespace(_ value: String) -> String {
        let isOWSByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = value.utf8.first, let last = value.utf8.last, isOWSByte(first) || isOWSByte(last) else {
            return value  // nothing to trim: the common case, without a copy
        }
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = value.firstIndex(where: { !isOWS($0) }),
            let end = value.lastIndex(where: { !isOWS($0) })
        else { return "" }
        return String(value[start...end])
    }

    /// A parameter or directive value as it means: a quoted string (RFC 9110 §5.6.4) without its
    /// quotes and with each quoted pair (`\"`, `\\`, a backslash before any character) read as the
    /// character it escapes; any other value as it is. A value that opens a quote and does not close
    /// it is not a quoted string, and is kept as it is; a bare quote inside one is kept as it stands.
    package static func unquoted(_ value: some StringProtocol) -> String {
        guard let content = quotedContent(value) else { return String(value) }
        var text = ""
        var escaped = false
        for character in content {
            if escaped || character != "\\" {
                text.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        // A backslash just before the closing quote escaped it: the string never closed.
        return escaped ? String(value) : text
    }

    /// What lies between the quotes of a value that starts and ends with one, as written (quoted
    /// pairs not read); `nil` for any other value.
    package static func quotedContent<Value: StringProtocol>(_ value: Value) -> Value.SubSequence? {
        guard value.count >= 2, value.first == "\"", value.last == "\"" else { return nil }
        return value.dropFirst().dropLast()
    }

    /// Shows a credential's value redacted, so `dump` of headers or a request cannot leak it.
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": shownValue], displayStyle: .struct)
    }
}
