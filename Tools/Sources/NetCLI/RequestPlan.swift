import Foundation
import Net

/// What `net` will send: the request, and for multipart bodies the parts (so `--curl` can show
/// them as curl's `-F` options instead of an opaque stream).
public struct RequestPlan: Sendable {
    /// The request, body and headers included.
    public var request: NetworkRequest
    /// The form's parts when the body is `multipart/form-data`.
    public var multipartParts: [any NetworkMultipartFormDataConvertible]?
    /// The header fields the command line gave (`Header:value` items and `--bearer`), which
    /// `--session` keeps for later runs.
    public var givenHeaders: [NetworkHeader] = []

    /// Builds the request for `method` and `url` from the command line's items.
    ///
    /// - Parameters:
    ///   - url: the URL as typed; `http://` is assumed without a scheme, and `:8080/path` means
    ///     `http://localhost:8080/path`, as in HTTPie.
    ///   - form: send fields as a form (`application/x-www-form-urlencoded`) rather than JSON.
    ///   - bearer: a token for `Authorization: Bearer …`.
    /// - Throws: ``UsageError`` for anything wrong on the command line, with Net's own message.
    public init(method: NetworkHttpMethod, url: String, items: [RequestItem], form: Bool, bearer: String?, timeout: Duration?) throws {
        var headers: [NetworkHeader] = []
        var query: [NetworkQuery] = []
        var fields: [(name: String, value: BodyValue)] = []
        for item in items {
            switch item {
            case .header(let name, let value): headers.append(NetworkHeader(name: name, value: value))
            case .query(let key, let value): query.append(NetworkQuery(key: key, value: value))
            case .field(let name, let value): fields.append((name, .string(value)))
            case .jsonField(let name, let json): fields.append((name, .json(try Self.validatedJSON(json, field: name))))
            case .file(let name, let path): fields.append((name, .file(path)))
            }
        }
        if let bearer {
            // Two Authorization fields would be sent (URLSession joins them into one value): the
            // user means one of them.
            guard !headers.contains(where: { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }) else {
                throw UsageError("--bearer and an Authorization: item both set Authorization: give one")
            }
            headers.append(NetworkHeader(name: "Authorization", value: "Bearer \(bearer)"))
        }
        givenHeaders = headers
        let url = Self.absoluteURL(url)
        do {
            if fields.contains(where: \.value.isFile) {
                let parts = try Self.multipartParts(fields)
                request = try NetworkRequest(url: url, httpMethod: method, headers: headers, query: query, multipartForm: parts, timeout: timeout)
                multipartParts = parts
            } else if form {
                request = try NetworkRequest(url: url, httpMethod: method, headers: headers, query: query, body: try Self.formBody(fields), timeout: timeout)
                if !fields.isEmpty { try request.setDefaultHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8") }
            } else {
                // A JSON object holds a name once: most parsers keep the last of two, so the
                // first would be dropped without a word.
                var seen = Set<String>()
                if let repeated = fields.first(where: { !seen.insert($0.name).inserted }) {
                    throw UsageError("field \"\(repeated.name)\" is given twice, and a JSON object holds a name once: give an array (\(repeated.name):='[...]') or use --form")
                }
                let body: NetworkRequestBody = fields.isEmpty ? .none : .data(Data(Self.jsonObject(fields).utf8))
                request = try NetworkRequest(url: url, httpMethod: method, headers: headers, query: query, body: body, timeout: timeout)
                if !fields.isEmpty {
                    try request.setDefaultHeader("Content-Type", "application/json")
                    try request.setDefaultHeader("Accept", "application/json, */*;q=0.5")
                }
            }
        } catch let error as NetworkError {
            throw UsageError(error.description)
        }
        // A header whose name says it holds a credential (PRIVATE-TOKEN, X-Vault-Token,
        // X-Goog-Api-Key…) is one: redacted by --curl and dropped by a redirect to another
        // origin, as the names the library knows are.
        for header in headers where Self.namesACredential(header.name) { request.secretHeaderNames.insert(header.name) }
    }

    /// Whether a header's name says its value is a credential, word by word (`-` and `_` part
    /// them): a word holding `token`, `secret`, `passw`, `apikey`, or `auth` (but not `author…`
    /// other than `authoriz…`); a word holding `session` other than `session` itself, or
    /// `session` last or before `id`, `token` or `key`; `key` itself, unless it names something
    /// else (`Cache-Key`, `Idempotency-Key`, `Sec-WebSocket-Key`, `Public-Key`, `Kms-Key-Id`). Not `Authority`,
    /// `X-Author`, `X-Session-Affinity`, `Keep-Alive`.
    static func namesACredential(_ name: String) -> Bool {
        let words = name.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        for (index, word) in words.enumerated() {
            let next = index + 1 < words.count ? words[index + 1] : ""
            let previous = index > 0 ? words[index - 1] : ""
            if ["token", "secret", "passw", "apikey"].contains(where: word.contains) { return true }
            if word.contains("auth"), !word.contains("author") || word.contains("authoriz") { return true }
            if word.contains("session"), word != "session" || ["", "id", "token", "key"].contains(next) { return true }
            // Not `…-Kms-Key-Id` either: an S3 redirect to another region must keep the encryption key's name.
            if word == "key" && !["cache", "idempotency", "websocket", "public", "ssh", "kms"].contains(previous) { return true }
        }
        return false
    }

    /// A field's value in the body.
    enum BodyValue {
        case string(String)
        case json(String)
        case file(String)

        var isFile: Bool { if case .file = self { true } else { false } }
    }

    static func absoluteURL(_ typed: String) -> String {
        // A scheme only at the start: `host/login?next=http://x` has none of its own.
        if let separator = typed.range(of: "://"), isScheme(typed[..<separator.lowerBound]) { return typed }
        if typed.hasPrefix(":") { return "http://localhost" + typed }
        return "http://" + typed
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-` or `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    static func validatedJSON(_ text: String, field: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8), options: .fragmentsAllowed)) != nil else {
            throw UsageError("field \"\(field)\": \(text.isEmpty ? "nothing" : "\"\(text)\"") after \":=\" is not JSON")
        }
        return trimmed
    }

    /// The fields as one JSON object, in the order given; raw values are written as typed.
    static func jsonObject(_ fields: [(name: String, value: BodyValue)]) -> String {
        let members = fields.map { field -> String in
            switch field.value {
            case .string(let text): return "\(JSONText.quoted(field.name)): \(JSONText.quoted(text))"
            case .json(let json): return "\(JSONText.quoted(field.name)): \(json)"
            case .file(let path): return "\(JSONText.quoted(field.name)): \(JSONText.quoted(path))"  // files go multipart; never reached
            }
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    static func formBody(_ fields: [(name: String, value: BodyValue)]) throws -> NetworkRequestBody {
        guard !fields.isEmpty else { return .none }
        let pairs = try fields.map { field -> (name: String, value: String) in
            guard case .string(let value) = field.value else {
                throw UsageError("field \"\(field.name)\": raw JSON (\":=\") needs a JSON body; drop --form")
            }
            return (field.name, value)
        }
        // As browsers and HTTPie send a form (the WHATWG serializer: a space is `+`).
        return .data(Data(URLEncodedForm.serialize(pairs).utf8))
    }

    /// Text fields and files as parts, in the order given.
    static func multipartParts(_ fields: [(name: String, value: BodyValue)]) throws -> [any NetworkMultipartFormDataConvertible] {
        try fields.map { field -> any NetworkMultipartFormDataConvertible in
            switch field.value {
            case .string(let value):
                return NetworkMultipartFormDataRequest(name: field.name, value: value)
            case .json:
                throw UsageError("field \"\(field.name)\": raw JSON (\":=\") cannot go in a multipart form; send it as a file (field@file.json)")
            case .file(let path):
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                    throw UsageError("field \"\(field.name)\": no file at \"\(path)\"")
                }
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw UsageError("field \"\(field.name)\": cannot read \"\(path)\" (permission denied)")
                }
                return NetworkMultipartFormFileRequest(name: field.name, fileURL: URL(fileURLWithPath: path))
            }
        }
    }
}

extension NetworkRequest {
    /// Sets `name` unless the user gave it on the command line.
    mutating func setDefaultHeader(_ name: String, _ value: String) throws {
        if !headers.contains(name: name) { try headers.set(name: name, value: value) }
    }
}
