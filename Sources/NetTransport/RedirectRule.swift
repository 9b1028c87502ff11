import Foundation
import NetCore

/// What a client sends after a 3xx, as RFC 9110 §15.4 and browsers do it: applied by the pipeline's
/// redirect stage for every transport, and public for code that follows redirects itself.
public enum RedirectRule: Sendable {
    /// The request to send next, or `nil` when `head` is not a redirect that can be followed
    /// (not 301/302/303/307/308, no `Location`, or a `Location` that is not http(s)).
    ///
    /// Throws ``NetworkError/RequestFailure/invalidURL(_:reason:)`` when the `Location` is http(s)
    /// but cannot be sent (a port outside 1–65535): a server must not be able to steer a client to
    /// a port that wraps round or traps.
    ///
    /// 303 becomes GET (HEAD stays HEAD); 301 and 302 turn POST into GET; 307 and 308 keep the
    /// method and body. Credentials (`Authorization`, `Proxy-Authorization`, `Cookie` and every
    /// other header ``NetworkRedaction/sensitiveHeaderNames`` names) are dropped when the target is
    /// another origin.
    public static func nextRequest(after head: NetworkResponseHead, for request: NetworkRequest) throws -> NetworkRequest? {
        let status = head.statusCode.rawValue
        guard [301, 302, 303, 307, 308].contains(status),
              let location = head.headers["Location"],
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              target.host != nil else { return nil }
        var next = request
        next.url = target
        try next.validate()
        // 303 always becomes GET; 301/302 turn POST into GET as every client does. 307/308 keep all.
        let becomesGet = (status == 303 && request.httpMethod != .head)
            || ((status == 301 || status == 302) && request.httpMethod == .post)
        if becomesGet {
            next.httpMethod = .get
            next.body = .none
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] { next.headers.remove(name: name) }
        }
        if !sameOrigin(request.url, target) {
            // Every credential Net knows by name or the request marks as one (an API key an
            // interceptor signed with among them), not only the three the specifications name.
            for name in Set(next.headers.map(\.name)) where request.isSecretHeader(name) {
                next.headers.remove(name: name)
            }
        }
        return next
    }

    /// Whether `lhs` and `rhs` have one origin: scheme, host and effective port.
    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
