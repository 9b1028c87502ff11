#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

extension NetworkRequest {
    /// The request as a curl command that sends `parts` with curl's own form options (`-F`,
    /// `--form-string`) instead of the streamed body, which a shell command cannot show.
    ///
    /// The request's URL, method and headers are rendered as ``curlCommand(_:)`` renders them, except
    /// its `Content-Type` and `Content-Length`, which curl writes for its own boundary. Files are
    /// referenced by path, so the command streams them as Net does. curl frames the form with another
    /// boundary but the same fields: names, filenames (escaped as browsers escape them), part
    /// types and bytes.
    ///
    /// - Returns: `nil` when curl's form syntax cannot say exactly what Net would send: a name with
    ///   `=`, `"` or a line break; a part with extra headers or `Content-Disposition` parameters; an
    ///   in-memory part with a filename; or bytes that are not printable text.
    /// - Throws: the ``NetworkError`` a part throws when it is built.
    public func curlCommand(
        multipartForm parts: [any NetworkMultipartFormDataConvertible],
        options: CurlOptions = .default
    ) throws -> CurlCommand? {
        var formArguments: [String] = []
        // Redacted as a form body is in `curlCommand(_:)`: a field named as a credential shows
        // `REDACTED`, and the request's own credential values are scrubbed from every field.
        let keys = options.sensitiveQueryKeys.union(secretQueryKeys.map { $0.lowercased() })
        let secrets = NetworkRedaction.secretValues(of: self)
        let shown: (String, String?, String) -> String = { name, contentType, text in
            guard options.redactsSecrets else { return text }
            guard !NetworkRedaction.isCredentialKey(name, in: keys) else { return NetworkRedaction.placeholder }
            // A JSON or form field by its keys, as the same form given as `Data` is.
            return BodyRedaction.redacting(NetworkRedaction.scrubbing(text, secrets: secrets), contentType: contentType, keys: keys)
        }
        for convertible in parts {
            guard let arguments = try MultipartCurlArguments.arguments(for: convertible.multipartPart(), shown: shown) else { return nil }
            formArguments += arguments
        }
        var plain = self
        plain.body = .none
        plain.headers.remove(name: "Content-Type")
        plain.headers.remove(name: "Content-Length")
        var arguments = plain.curlCommand(options).arguments
        // `-F` makes curl POST by itself; `-X POST` beside it only earns a warning.
        if let method = arguments.firstIndex(of: "-X"), arguments.indices.contains(method + 1), arguments[method + 1] == "POST" {
            arguments.removeSubrange(method...(method + 1))
        }
        // The URL stays last, after the form.
        arguments.insert(contentsOf: formArguments, at: arguments.endIndex - 1)
        return CurlCommand(arguments: arguments)
    }
}

/// curl's form syntax for one part.
enum MultipartCurlArguments {
    /// `shown` gives the text an in-memory field shows, from its name, its type and its text.
    static func arguments(for part: MultipartPart, shown: (String, String?, String) -> String) -> [String]? {
        guard isExpressible(name: part.name), part.additionalHeaders.isEmpty,
            part.additionalContentDispositionParameters.isEmpty
        else { return nil }
        var attributes = ""
        if let filename = part.filename {
            guard isPrintable(filename) else { return nil }
            attributes += ";filename=" + quoted(filename)
        }
        if let contentType = part.contentType {
            // A type with `;` or `"` would end curl's attribute or need quoting it does not offer here.
            guard isPrintable(contentType), !contentType.contains(";"), !contentType.contains("\"") else { return nil }
            attributes += ";type=" + contentType
        }
        switch part.body {
        case .file(let url):
            guard isPrintable(url.path) else { return nil }
            return ["-F", "\(part.name)=@\(quoted(url.path))\(attributes)"]
        case .data(let data):
            guard part.filename == nil, let sent = String(data: data, encoding: .utf8), isPrintable(sent, allowingNewlines: true) else { return nil }
            let text = shown(part.name, part.contentType, sent)
            if attributes.isEmpty {
                return ["--form-string", "\(part.name)=\(text)"]  // taken literally, `@` and `<` included
            }
            return ["-F", "\(part.name)=\(quoted(text))\(attributes)"]
        }
    }

    /// curl splits `-F` at the first `=`, and would escape `"` and line breaks in names its own way.
    private static func isExpressible(name: String) -> Bool {
        !name.isEmpty && !name.containsScalar("=") && !name.containsScalar("\"") && isPrintable(name)
    }

    /// A double-quoted value in curl's form syntax: `\` escapes `"` and `\`.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingScalars("\\", with: "\\\\").replacingScalars("\"", with: "\\\"") + "\""
    }

    private static func isPrintable(_ text: String, allowingNewlines: Bool = false) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            if allowingNewlines && (scalar == "\n" || scalar == "\t") { return true }
            let category = scalar.properties.generalCategory
            return category != .control && category != .format && category != .lineSeparator && category != .paragraphSeparator
        }
    }
}
