#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How Net hides credentials wherever it writes text a person or a log will read: request and
/// response descriptions, error messages, ``LoggingInterceptor``-style logs and curl commands.
///
/// The value of every credential header (``sensitiveHeaderNames``), the value of every query
/// parameter with a well-known secret key (``sensitiveQueryKeys``) or marked with
/// ``NetworkQuery/secret(key:value:)`` (in the query or the fragment), the password in
/// `user:password@` and a user name given alone (`https://TOKEN@host`) become `REDACTED`.
/// The shape stays (`Bearer REDACTED`, `token=REDACTED`) because it helps debugging and is not
/// secret. Only ``CurlOptions/unredacted`` and the raw properties (`request.url`,
/// `request.headers["Authorization"]`) show the values.
public enum NetworkRedaction: Sendable {
    /// What replaces a secret.
    public static let placeholder = "REDACTED"

    /// Header names (lowercased) whose values are always redacted.
    public static let sensitiveHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
        "x-auth-token", "x-access-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
        // Vendors' own: Google, GitLab, Cloudflare, Vault, Azure API Management, Datadog, Shopify.
        "x-goog-api-key", "private-token", "x-auth-key", "x-vault-token", "ocp-apim-subscription-key",
        "dd-api-key", "dd-application-key", "x-shopify-access-token",
    ]

    /// Query keys (lowercased) whose values are always redacted.
    public static let sensitiveQueryKeys: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "api-key",
        "client_secret", "client_assertion", "code_verifier", "secret", "password", "passwd", "signature", "sig",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        // Signed URLs (Google Cloud Storage, AWS's older form), OAuth 1, GitLab. Not Google's `key`:
        // the name is everyone's (a Jira issue, a KV path, an S3 form's object name), and these
        // keys also pick what is redacted in recorded JSON bodies; mark it with
        // `NetworkQuery.secret(key:value:)`, or send `X-Goog-Api-Key`.
        "x-goog-signature", "x-goog-credential", "awsaccesskeyid", "oauth_signature", "oauth_token",
        "private_token",
    ]

    /// Whether the value of header `name` (any case) is a credential.
    public static func isSensitiveHeader(_ name: String) -> Bool {
        // Compared in place, without a lower-cased copy: the cache asks for every field of every
        // request it looks up.
        guard sensitiveHeaderLengths.contains(name.utf8.count) else { return false }
        return sensitiveHeaderNames.contains { NetworkHeaders.sameName($0, name) }
    }

    /// Whether header `name` is one `marked` names (a request's ``NetworkRequest/secretHeaderNames``),
    /// compared as header names are.
    package static func isMarkedHeader(_ name: String, in marked: Set<String>) -> Bool {
        !marked.isEmpty && marked.contains { NetworkHeaders.sameName($0, name) }
    }

    /// The lengths of ``sensitiveHeaderNames``, which most names are not.
    private static let sensitiveHeaderLengths = Set(sensitiveHeaderNames.map(\.utf8.count))

    /// `url` with its password and the values of sensitive or `secretQueryKeys` parameters redacted.
    public static func redactedURL(_ url: URL, secretQueryKeys: Set<String> = []) -> String {
        redactedURL(url.absoluteString, secretQueryKeys: secretQueryKeys)
    }

    /// The text of a URL (valid or not) with its password and secret query values redacted.
    public static func redactedURL(_ url: String, secretQueryKeys: Set<String> = []) -> String {
        redactedURL(url, exactKeys: queryKeys(adding: secretQueryKeys))
    }

    /// The well-known credential keys and `secretQueryKeys`, lowercased.
    package static func queryKeys(adding secretQueryKeys: Set<String>) -> Set<String> {
        secretQueryKeys.isEmpty ? sensitiveQueryKeys : sensitiveQueryKeys.union(secretQueryKeys.map { $0.lowercased() })
    }

    /// `Bearer abc` becomes `Bearer REDACTED`: the scheme helps debugging and is not secret.
    package static func redactedCredential(_ value: String) -> String {
        let parts = value.split(separator: " ", maxSplits: 1)
        if parts.count == 2, HTTPToken.isValid(String(parts[0])) {
            return "\(parts[0]) \(placeholder)"
        }
        return placeholder
    }

    /// Redacts with exactly `keys` (lowercased): curl rendering lets callers choose the set.
    ///
    /// User info keeps its user name when a password follows it (`user:REDACTED@`); a user name
    /// alone (`https://TOKEN@host`, `https://TOKEN:@host`) is how many APIs take a token, and is
    /// redacted whole. The fragment's `key=value` pairs are redacted as the query's are: an OAuth
    /// implicit flow hands its `access_token` back there, in a redirect's `Location`.
    package static func redactedURL(_ url: String, exactKeys keys: Set<String>) -> String {
        var result = url
        if let authority = URLValidation.authorityRange(in: result).map({ result[$0] }),
            let at = authority.lastIndex(of: "@")
        {
            let userInfo = authority.startIndex..<at
            if let colon = authority[userInfo].firstIndex(of: ":"), authority.index(after: colon) < at {
                result.replaceSubrange(result.index(after: colon)..<at, with: placeholder)
            } else if !userInfo.isEmpty {
                result.replaceSubrange(userInfo, with: placeholder)
            }
        }
        if let fragment = result.firstIndex(of: "#").map({ result.index(after: $0)..<result.endIndex }) {
            result.replaceSubrange(fragment, with: redactedFragment(result[fragment], exactKeys: keys))
        }
        guard let query = queryRange(in: result) else { return result }
        result.replaceSubrange(query, with: redactedQuery(result[query], exactKeys: keys))
        return result
    }

    /// `key=value&…` (a URL's query, or a form body) with the values of `keys` (lowercased,
    /// compared with each key decoded) redacted.
    package static func redactedQuery(_ query: Substring, exactKeys keys: Set<String>) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let value = secretValue(in: pair, keys: keys) else { return String(pair) }
            return String(pair[..<value.startIndex]) + placeholder
        }.joined(separator: "&")
    }

    /// A fragment with its credential pairs redacted: `key=value&…`, or a hash router's
    /// `/callback?key=value&…`, whose pairs start after its last `?`.
    private static func redactedFragment(_ fragment: Substring, exactKeys keys: Set<String>) -> String {
        fragmentQueries(fragment).map { redactedQuery($0, exactKeys: keys) }.joined(separator: "?")
    }

    /// The fragment as the `key=value&…` texts it may hold: itself, or the parts before and after
    /// a hash router's last `?`.
    private static func fragmentQueries(_ fragment: Substring) -> [Substring] {
        guard let mark = fragment.lastIndex(of: "?") else { return [fragment] }
        return [fragment[..<mark], fragment[fragment.index(after: mark)...]]
    }

    /// The query of `url`: after the first `?`, before any `#`.
    private static func queryRange(in url: String) -> Range<String.Index>? {
        guard let mark = url.firstIndex(of: "?") else { return nil }
        let start = url.index(after: mark)
        return start..<(url[start...].firstIndex(of: "#") ?? url.endIndex)
    }

    /// The (encoded) value of a `key=value` pair whose key, decoded, is one of `keys`.
    private static func secretValue(in pair: Substring, keys: Set<String>) -> Substring? {
        guard let equals = pair.firstIndex(of: "="),
              isCredentialKey(PercentEncoding.decode(pair[..<equals]), in: keys) else { return nil }
        return pair[pair.index(after: equals)...]
    }

    /// Whether a field's decoded name is one of `keys` (lowercased), in any case, whole or as the
    /// last bracketed part of a nested name (`user[password]`, `auth[client_secret][]`), as Rails,
    /// PHP and qs-style forms and queries nest them.
    package static func isCredentialKey(_ name: String, in keys: Set<String>) -> Bool {
        let lowered = name.lowercased()
        if keys.contains(lowered) { return true }
        var nested = Substring(lowered)
        while nested.hasSuffix("[]") { nested = nested.dropLast(2) }
        guard nested.hasSuffix("]"), let open = nested.lastIndex(of: "[") else { return false }
        return keys.contains(String(nested[nested.index(after: open)..<nested.index(before: nested.endIndex)]))
    }
}

extension NetworkResponse {
    /// `200 OK https://…`, with the URL's credentials redacted as the request marks them.
    var redactedHead: String {
        "\(response.statusCode) \(NetworkRedaction.redactedURL(response.url, secretQueryKeys: originalRequest.secretQueryKeys))"
    }

    /// The response's properties, with the head shown by ``redactedHead``.
    func redactedMirror(body: (label: String, value: Any)) -> Mirror {
        Mirror(self, children: [(label: String?.some(body.label), value: body.value),
                                (label: "response", value: redactedHead), (label: "originalRequest", value: originalRequest)],
               displayStyle: .struct)
    }
}

extension NetworkRedaction {
    /// The credential values `request` carries (sensitive header values, the credential after an
    /// auth scheme, secret query values, a URL password), for scrubbing text that echoes them.
    package static func secretValues(of request: NetworkRequest) -> [String] {
        var values: [String] = []
        for header in request.headers where request.isSecretHeader(header.name) {
            values.append(header.value)
            // The credential after an auth scheme (`Bearer xyz`); a `Cookie: a=1; theme=dark` has
            // no scheme, and its second cookie is not a credential of its own.
            let parts = header.value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, HTTPToken.isValid(String(parts[0])) { values.append(String(parts[1])) }
        }
        let keys = queryKeys(adding: request.secretQueryKeys)
        let text = request.url.absoluteString
        for pair in queryRange(in: text).map({ text[$0].split(separator: "&") }) ?? [] {
            guard let value = secretValue(in: pair, keys: keys) else { continue }
            values += [String(value), PercentEncoding.decode(value)]
        }
        if let password = request.url.password, !password.isEmpty {
            values.append(password)
        } else if let user = request.url.user, user.count >= 16 {
            // A user name alone is redacted in URLs as a token may be; scrubbed from other text
            // only when it is long enough to be one (`jenkins`, `ubuntu` are echoed everywhere).
            values.append(user)
        }
        if let fragment = request.url.fragment {
            for pair in fragmentQueries(fragment[...]).flatMap({ $0.split(separator: "&") }) {
                guard let value = secretValue(in: pair, keys: keys) else { continue }
                values += [String(value), PercentEncoding.decode(value)]
            }
        }
        // Very short values would redact ordinary text; a credential is longer than this.
        return values.filter { $0.count >= 6 }
    }

    /// `text` with every occurrence of `secrets` replaced: for server text shown in an error (a
    /// body excerpt), which may echo the credentials the request sent.
    package static func scrubbing(_ text: String, secrets: [String]) -> String {
        secrets.sorted { $0.unicodeScalars.count > $1.unicodeScalars.count }.reduce(text) { $0.replacingScalars($1, with: placeholder) }
    }

    /// `bytes` (a body that is not UTF-8 text) with every occurrence of each secret's UTF-8 bytes
    /// replaced by ``placeholder``, the longest secrets first.
    package static func scrubbing(_ bytes: [UInt8], secrets: [String]) -> [UInt8] {
        let replacement = Array(placeholder.utf8)
        return secrets.map { Array($0.utf8) }.filter { !$0.isEmpty }.sorted { $0.count > $1.count }.reduce(bytes) { bytes, secret in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                if bytes[index] == secret[0], index + secret.count <= bytes.count, bytes[index..<(index + secret.count)].elementsEqual(secret) {
                    output += replacement
                    index += secret.count
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
            return output
        }
    }
}
