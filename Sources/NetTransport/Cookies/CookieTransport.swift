import Foundation
import NetCore

/// Sends a ``CookieJar``'s cookies with every exchange and stores what responses set. It wraps
/// the transport, so each redirect hop is an exchange of its own: a cookie set by a 302 is sent to
/// where it points, if it matches there.
struct CookieTransport: Transport {
    let base: any Transport
    let jar: CookieJar

    init(_ base: any Transport, jar: CookieJar) {
        self.base = base
        self.jar = jar
    }

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        var request = request
        if let cookies = jar.cookieHeader(for: request.url) {
            // A Cookie field the caller set stays, with the jar's cookies after it.
            let given = request.headers.values(for: "Cookie")
            try request.headers.set(name: "Cookie", value: (given + [cookies]).joined(separator: "; "))
        }
        let response = try await base.exchange(request, progress: progress)
        // The cache stores no Set-Cookie fields: a cache hit carries none, and a revalidated
        // response carries only the 304's own.
        try jar.storeCookies(from: response.response.headers, for: response.response.url)
        return response
    }

    var responseLimits: ResponseLimits { base.responseLimits }
}
