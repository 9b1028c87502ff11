/// Credentials in a multipart/form-data body (RFC 7578): the content of a field named as a
/// credential key (`password`, `client_secret`…) is replaced, and a field whose own type is JSON or
/// a form is redacted as such a body is. Read as bytes, so a form that also carries a binary file
/// is redacted before it is shown as base64.
extension BodyRedaction {
    private static let lineEnd: [UInt8] = [13, 10]
    private static let headersEnd: [UInt8] = [13, 10, 13, 10]

    /// The `boundary` parameter of a multipart media type, unquoted; `nil` when it has none.
    package static func multipartBoundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, trimmed(pair[0]).lowercased() == "boundary" else { continue }
            let value = unquoted(trimmed(pair[1]))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// `body` with its credential fields redacted when `contentType` is multipart/form-data with a
    /// boundary; as it is otherwise.
    package static func redactingMultipart(_ body: [UInt8], contentType: String?, keys: Set<String>) -> [UInt8] {
        guard let contentType, contentType.lowercased().contains("multipart/form-data"),
              let boundary = multipartBoundary(in: contentType) else { return body }
        return redactingMultipart(body, boundary: boundary, keys: keys)
    }

    /// `text`, a multipart/form-data body delimited by `boundary`, with its credential fields
    /// redacted.
    static func redactingMultipart(_ text: String, boundary: String, keys: Set<String>) -> String {
        String(decoding: redactingMultipart(Array(text.utf8), boundary: boundary, keys: keys), as: UTF8.self)
    }

    /// The body's parts between its delimiters, each redacted; the preamble, the delimiters, the
    /// epilogue and any part that is not headers, a blank line and content are kept as they are.
    static func redactingMultipart(_ body: [UInt8], boundary: String, keys: Set<String>) -> [UInt8] {
        let delimiter = Array("--\(boundary)".utf8)
        var delimiters: [Int] = []  // each at the body's start or after a line end
        var from = 0
        while let found = firstIndex(of: delimiter, in: body, from: from) {
            if found == 0 || (found >= 2 && Array(body[(found - 2)..<found]) == lineEnd) { delimiters.append(found) }
            from = found + delimiter.count
        }
        guard let first = delimiters.first, let last = delimiters.last else { return body }
        var output = Array(body[..<first])
        output.reserveCapacity(body.count)
        for (start, next) in zip(delimiters, delimiters.dropFirst()) {
            // The line end before the next delimiter is the delimiter's.
            output += redactedPart(of: body, start..<next, contentEnd: next - 2, delimiterLength: delimiter.count, keys: keys)
        }
        let closing = delimiter + Array("--".utf8)
        if body[last...].starts(with: closing) {
            output += body[last...]
        } else {
            // No closing delimiter: the last part runs to the end, and is redacted as the others.
            output += redactedPart(of: body, last..<body.count, contentEnd: body.count, delimiterLength: delimiter.count, keys: keys)
        }
        return output
    }

    /// The part of `body` in `part`, from its delimiter: redacted when it is a delimiter line,
    /// headers, a blank line and content ending at `contentEnd`; as it is otherwise.
    private static func redactedPart(of body: [UInt8], _ part: Range<Int>, contentEnd: Int, delimiterLength: Int, keys: Set<String>) -> [UInt8] {
        guard let delimiterLineEnd = firstIndex(of: lineEnd, in: body, from: part.lowerBound + delimiterLength),
              let blank = firstIndex(of: headersEnd, in: body, from: delimiterLineEnd), blank + 4 <= contentEnd else {
            return Array(body[part])
        }
        let headers = String(decoding: body[min(delimiterLineEnd + 2, blank)..<blank], as: UTF8.self)
        return Array(body[part.lowerBound..<(blank + 4)])
            + redactedContent(body[(blank + 4)..<contentEnd], headers: headers, keys: keys)
            + Array(body[contentEnd..<part.upperBound])
    }

    /// A part's content: the placeholder for a credential field, redacted as its type for JSON or
    /// a form (text only), as it is otherwise.
    private static func redactedContent(_ content: ArraySlice<UInt8>, headers: String, keys: Set<String>) -> [UInt8] {
        var name: String?
        var type: String?
        for line in headers.split(separator: "\r\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2 else { continue }
            switch trimmed(field[0]).lowercased() {
            case "content-disposition":
                for parameter in field[1].split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    if pair.count == 2, trimmed(pair[0]).lowercased() == "name" { name = unquoted(trimmed(pair[1])) }
                }
            case "content-type": type = trimmed(field[1])
            default: break
            }
        }
        if let name, keys.contains(name.lowercased()) { return Array(NetworkRedaction.placeholder.utf8) }
        let text = String(decoding: content, as: UTF8.self)
        guard let type, !type.lowercased().contains("multipart"), text.utf8.elementsEqual(content) else { return Array(content) }
        return Array(redacting(text, contentType: type, keys: keys).utf8)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    private static func unquoted(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }
}
