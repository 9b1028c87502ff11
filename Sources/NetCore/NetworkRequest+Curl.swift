#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension NetworkRequest {
    /// The request as a curl command for a POSIX shell, with secrets redacted.
    ///
    /// Safe to log and to paste: see ``CurlCommand``. Use ``curlCommand(_:)`` with
    /// ``CurlOptions/unredacted`` for a command that repeats the request with its credentials.
    public var curl: String { curlCommand().shellCommand }

    /// The request as a curl command, rendered with `options`.
    public func curlCommand(_ options: CurlOptions = .default) -> CurlCommand {
        var arguments: [String] = []
        var standardInput: Data?
        var note: String?
        var bodyArguments: [String] = []

        switch body {
        case .none:
            break
        case .data(let data):
            // Redacted before choosing how to show it: a UTF-8 body with a control or invisible
            // character goes through `printf`, and is redacted all the same.
            let shown = if options.redactsSecrets, let text = String(validating: data, as: UTF8.self) {
                Data(redactedBody(text, options: options).utf8)
            } else if options.redactsSecrets {
                // Not UTF-8 (a form with a binary file in it): a multipart form's fields and the
                // request's own credential values all the same.
                Data(NetworkRedaction.scrubbing(
                    BodyRedaction.redactingMultipart(Array(data), contentType: headers["Content-Type"], keys: bodyKeys(options)),
                    secrets: NetworkRedaction.secretValues(of: self)))
            } else {
                data
            }
            if let text = Self.displayableText(shown) {
                bodyArguments = ["--data-raw", text]
            } else {
                bodyArguments = ["--data-binary", "@-"]
                standardInput = shown
            }
        case .file(let file):
            bodyArguments = ["--data-binary", "@" + file.path]
        case .stream(let stream):
            bodyArguments = ["--data-binary", "@-"]
            note = "streamed body (\(stream.length.map { "\($0) bytes" } ?? "unknown length")) is read from standard input"
        }
        let hasBody = !bodyArguments.isEmpty

        switch (httpMethod, hasBody) {
        case (.get, false), (.post, true): break
        case (.head, false): arguments.append("--head")
        default: arguments += ["-X", httpMethod.rawValue]
        }
        if options.followsRedirects { arguments.append("-L") }
        if options.allowsInsecureTLS { arguments.append("-k") }
        if options.includesTimeout, let timeout {
            arguments += ["--max-time", String(timeout.secondsValue)]
        }
        for header in headers {
            let secret = options.sensitiveHeaderNames.contains(NetworkHeaders.lowercased(header.name))
                || NetworkRedaction.isMarkedHeader(header.name, in: secretHeaderNames)
            let value = options.redactsSecrets && secret ? NetworkRedaction.redactedCredential(header.value) : header.value
            // `Name:` with nothing after it would make curl drop the header; `Name;` sends it empty.
            arguments += ["-H", value.isEmpty ? "\(header.name);" : "\(header.name): \(value)"]
        }
        if hasBody && !headers.contains(name: "Content-Type") {
            // Without this curl would add `Content-Type: application/x-www-form-urlencoded`.
            arguments += ["-H", "Content-Type:"]
        }
        arguments += bodyArguments

        let shownURL = options.redactsSecrets
            ? NetworkRedaction.redactedURL(
                url.absoluteString, exactKeys: options.sensitiveQueryKeys.union(secretQueryKeys.map { $0.lowercased() }))
            : url.absoluteString
        if shownURL.contains(where: { "[]{}".contains($0) }) {
            arguments.append("--globoff")  // curl would otherwise expand [] and {} as URL globs
        }
        arguments.append(shownURL)
        return CurlCommand(arguments: arguments, standardInput: standardInput, note: note)
    }

    /// A text body as a log may show it: the request's own credential values scrubbed (a body may
    /// repeat the token its header carries), and the values of credential keys in a form, JSON or
    /// multipart form body redacted (an OAuth token request's `client_secret`, `refresh_token`, `password`).
    private func redactedBody(_ text: String, options: CurlOptions) -> String {
        let scrubbed = NetworkRedaction.scrubbing(text, secrets: NetworkRedaction.secretValues(of: self))
        return BodyRedaction.redacting(scrubbed, contentType: headers["Content-Type"], keys: bodyKeys(options))
    }

    /// The keys whose values a body's redaction replaces: the options' and this request's own.
    private func bodyKeys(_ options: CurlOptions) -> Set<String> {
        options.sensitiveQueryKeys.union(secretQueryKeys.map { $0.lowercased() })
    }

    /// The body as text when it is UTF-8 with no control or invisible formatting characters other
    /// than tab and newline, so showing it in a terminal or log cannot mislead; otherwise `nil`.
    private static func displayableText(_ data: Data) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        guard text.utf8.elementsEqual(data) else { return nil }  // invalid UTF-8 was replaced
        let misleading = text.unicodeScalars.contains { scalar in
            guard scalar != "\n" && scalar != "\t" else { return false }
            let category = scalar.properties.generalCategory
            return category == .control || category == .format || category == .lineSeparator
                || category == .paragraphSeparator
        }
        return misleading ? nil : text
    }
}
