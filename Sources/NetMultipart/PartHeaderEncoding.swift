#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// Writes a part's header block, escaping as browsers do (WHATWG "multipart/form-data encoding
/// algorithm"): in names, filenames and parameter values `"` becomes `%22`, CR `%0D` and LF
/// `%0A`; other characters, backslash and non-ASCII included, are sent as they are (UTF-8), so
/// parsers (Werkzeug, multipart-kit) read `a\b` as `a\b`. Beyond the standard, other control
/// characters (NUL, ESC…), which no HTTP field may hold, become `%XX`. So no input can end the
/// quoted string, add a header line or start a part.
enum PartHeaderEncoding {
    static func headerBlock(for part: MultipartPart) throws -> Data {
        var disposition = "form-data; name=\"\(escape(part.name))\""
        if let filename = part.filename {
            disposition += "; filename=\"\(escape(filename))\""
        }
        // Each parameter once, and none that is Net's `name` (or `filename`, when the part has
        // one) in another spelling: `name*`, `filename*` and RFC 2231's `name*0`, `name*1`… are
        // the same parameter to parsers that decode them (Werkzeug takes `name*` over `name`),
        // and parsers disagree on a repeated one (Go refuses it, others keep the first or last).
        let written: Set<String> = part.filename == nil ? ["name"] : ["name", "filename"]
        var given = written
        for parameter in part.additionalContentDispositionParameters {
            if let tokenProblem = tokenProblem(parameter.name) {
                throw NetworkError.request(.invalidHeader(name: "Content-Disposition", reason: tokenProblem))
            }
            let lowered = parameter.name.lowercased()
            let base = lowered.split(separator: "*", maxSplits: 1).first.map(String.init) ?? lowered
            guard !written.contains(base), given.insert(lowered).inserted else {
                throw NetworkError.request(.encodeError(
                    type: "multipart part \"\(part.name)\"", description: "the Content-Disposition parameter \(parameter.name) is given twice"))
            }
            disposition += "; \(parameter.name)=\"\(escape(parameter.value))\""
        }
        var lines = ["Content-Disposition: \(disposition)"]
        if let contentType = part.contentType {
            lines.append("Content-Type: \(try NetworkHeader.header(key: "Content-Type", value: contentType).validated().value)")
        }
        for header in part.additionalHeaders {
            let validated = try header.validated()
            let lowered = validated.name.lowercased()
            if lowered == "content-disposition" || (lowered == "content-type" && part.contentType != nil) {
                throw NetworkError.request(.invalidHeader(name: validated.name, reason: .reservedName))
            }
            lines.append("\(validated.name): \(validated.value)")
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                // Other control characters (NUL, ESC, …) have no business in a header either.
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "%" + (hex.count == 1 ? "0" + hex : hex)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Why `name` is not an HTTP token, or `nil` when it is one.
    private static func tokenProblem(_ name: String) -> NetworkError.InvalidHeaderReason? {
        guard let first = name.unicodeScalars.first(where: { !isTokenCharacter($0) }) else {
            return name.isEmpty ? .emptyName : nil
        }
        return .invalidNameCharacter(first)
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII, scalar.value > 0x20, scalar.value < 0x7f else { return false }
        return !"\"(),/:;<=>?@[\\]{}".unicodeScalars.contains(scalar)
    }
}
