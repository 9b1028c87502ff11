/// Credentials in a multipart/form-data body (RFC 7578): the content of a field named as a
/// credential key (`password`, `user[password]`, `client_secret`…) is replaced, and a field whose
/// own type is JSON or a form is redacted as such a body is. Read as bytes, so a form that also
/// carries a binary file is redacted before it is shown as base64. Lines may end in CRLF, as the
/// RFC says, or in a bare LF, as hand-written forms do and many servers accept.
extension BodyRedaction {
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// The readings of the `boundary` parameter of a multipart media type, none when it has none:
    /// as RFC 9110 reads a quoted string (a backslash escapes the next character), and, when that
    /// differs, with only its quotes removed, as parsers that keep a backslash as it is read it
    /// (Werkzeug, multipart-kit; see `PartHeaderEncoding`). Redaction uses every reading, so that a
    /// form is redacted whichever way the server reads it.
    package static func multipartBoundaries(in contentType: String) -> [String] {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, trimmed(pair[0]).lowercased() == "boundary" else { continue }
            return readings(of: trimmed(pair[1])).filter { !$0.isEmpty }
        }
        return []
    }

    /// A quoted parameter value as RFC 9110 reads it and, when that differs, with only its quotes
    /// removed; an unquoted value as it is.
    private static func readings(of value: String) -> [String] {
        let unescaped = NetworkHeader.unquoted(value)
        let quotesRemoved = NetworkHeader.quotedContent(value).map(String.init) ?? value
        return unescaped == quotesRemoved ? [unescaped] : [unescaped, quotesRemoved]
    }

    /// `body` with its credential fields redacted when `contentType` is multipart/form-data with a
    /// boundary; as it is otherwise.
    package static func redactingMultipart(_ body: [UInt8], contentType: String?, keys: Set<String>) -> [UInt8] {
        guard let contentType, mentions(contentType, "multipart/form-data") else { return body }
        return multipartBoundaries(in: contentType).reduce(body) { redactingMultipart($0, boundary: $1, keys: keys) }
    }

    /// `text`, a multipart/form-data body delimited by `boundary`, with its credential fields
    /// redacted.
    static func redactingMultipart(_ text: String, boundary: String, keys: Set<String>) -> String {
        String(decoding: redactingMultipart(Array(text.utf8), boundary: boundary, keys: keys), as: UTF8.self)
    }

    /// The body's parts between its delimiters, each redacted; the preamble, the delimiters, the
    /// epilogue and any part that is not headers, a blank line and content are kept as they are.
    /// A last part with no closing delimiter runs to the end of the body. One pass over the body,
    /// comparing the boundary at each line's start, and one over each part's header lines: no
    /// search runs past its own part, whatever the body (a hostile one included).
    static func redactingMultipart(_ body: [UInt8], boundary: String, keys: Set<String>) -> [UInt8] {
        let delimiter = Array("--\(boundary)".utf8)
        var delimiters: [Int] = []  // each at the body's start or at the start of a line
        var index = 0
        while index + delimiter.count <= body.count {
            if (index == 0 || body[index - 1] == lineFeed) && body[index..<(index + delimiter.count)].elementsEqual(delimiter) {
                delimiters.append(index)
                index += delimiter.count
            } else {
                index += 1
            }
        }
        guard let first = delimiters.first, let last = delimiters.last else { return body }
        var output = Array(body[..<first])
        output.reserveCapacity(body.count)
        for (start, next) in zip(delimiters, delimiters.dropFirst()) {
            // The line end before the next delimiter is the delimiter's.
            let contentEnd = next - 1 > start && body[next - 2] == carriageReturn ? next - 2 : next - 1
            output += redactedPart(of: body, start..<next, contentEnd: max(contentEnd, start), keys: keys)
        }
        if body[last...].starts(with: delimiter + Array("--".utf8)) {
            output += body[last...]
        } else {
            output += redactedPart(of: body, last..<body.count, contentEnd: body.count, keys: keys)
        }
        return output
    }

    /// The part of `body` in `part`, from its delimiter: redacted when it is a delimiter line,
    /// header lines, an empty line and content ending at `contentEnd`; as it is otherwise.
    private static func redactedPart(of body: [UInt8], _ part: Range<Int>, contentEnd: Int, keys: Set<String>) -> [UInt8] {
        var headers: [String] = []
        var lineStart = part.lowerBound
        var contentStart: Int?
        var isDelimiterLine = true
        while contentStart == nil, let feed = body[lineStart..<contentEnd].firstIndex(of: lineFeed) {
            let lineEnd = feed > lineStart && body[feed - 1] == carriageReturn ? feed - 1 : feed
            if isDelimiterLine {
                isDelimiterLine = false
            } else if lineEnd == lineStart {
                contentStart = feed + 1
            } else {
                headers.append(String(decoding: body[lineStart..<lineEnd], as: UTF8.self))
            }
            lineStart = feed + 1
        }
        guard let contentStart else { return Array(body[part]) }
        return Array(body[part.lowerBound..<contentStart])
            + redactedContent(body[contentStart..<contentEnd], headers: headers, keys: keys)
            + Array(body[contentEnd..<part.upperBound])
    }

    /// A part's content: the placeholder for a credential field, redacted as its type for JSON or
    /// a form (text only), as it is otherwise.
    private static func redactedContent(_ content: ArraySlice<UInt8>, headers: [String], keys: Set<String>) -> [UInt8] {
        var names: [String] = []
        var type: String?
        for line in headers {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2 else { continue }
            switch trimmed(field[0]).lowercased() {
            case "content-disposition":
                for parameter in field[1].split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    if pair.count == 2, trimmed(pair[0]).lowercased() == "name" { names = readings(of: trimmed(pair[1])) }
                }
            case "content-type": type = trimmed(field[1])
            default: break
            }
        }
        if names.contains(where: { NetworkRedaction.isCredentialKey($0, in: keys) }) { return Array(NetworkRedaction.placeholder.utf8) }
        let text = String(decoding: content, as: UTF8.self)
        guard let type, !mentions(type, "multipart"), text.utf8.elementsEqual(content) else { return Array(content) }
        return Array(redacting(text, contentType: type, keys: keys).utf8)
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
