/// RFC 6265's matching rules (§5.1.3, §5.1.4) and the public suffixes a cookie may not claim.
enum CookieDomain {
    /// §5.1.3: `host` is `domain`, or ends with `.domain` and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        let hostBytes = host.utf8, domainBytes = domain.utf8
        guard hostBytes.count > domainBytes.count, hostBytes.reversed().starts(with: domainBytes.reversed()),
              hostBytes.dropLast(domainBytes.count).last == UInt8(ascii: ".") else { return false }
        return !isIPAddress(host)
    }

    /// §5.1.4: `path` is `cookiePath`, or starts with it at a `/` boundary.
    static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        if path == cookiePath { return true }
        guard path.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"
    }

    /// §5.1.4: the directory of the request path, `/` when there is none.
    static func defaultPath(of requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex else { return "/" }
        return String(requestPath[..<slash])
    }

    /// An IPv4 literal (four decimal parts) or an IPv6 literal (with colons, bracketed or not).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && (Int(part) ?? 256) <= 255
        }
    }

    /// Whether `domain` is a public suffix: a single label (`com`, `localhost`), or one of the
    /// multi-label suffixes most often met (`co.uk`, `github.io`…). This is a subset of the
    /// Public Suffix List, chosen so that Net carries no 200 KB table: a cookie for a rarer
    /// registry's suffix is accepted, as it would be by a client without the list.
    static func isPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || commonPublicSuffixes.contains(domain)
    }

    /// Multi-label public suffixes: second-level registries of large country codes and the
    /// hosting domains whose subdomains belong to different owners.
    static let commonPublicSuffixes: Set<String> = [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "ltd.uk", "plc.uk", "me.uk", "net.uk", "sch.uk", "nhs.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp", "ed.jp", "gr.jp", "lg.jp",
        "co.nz", "org.nz", "net.nz", "ac.nz", "govt.nz", "geek.nz",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "edu.in", "gov.in",
        "co.kr", "or.kr", "ne.kr", "ac.kr", "go.kr",
        "com.mx", "org.mx", "gob.mx", "edu.mx", "com.ar", "gob.ar", "com.tr", "gov.tr", "edu.tr",
        "co.za", "org.za", "gov.za", "ac.za", "com.sg", "edu.sg", "gov.sg", "com.hk", "gov.hk", "edu.hk",
        "com.tw", "org.tw", "gov.tw", "edu.tw", "co.il", "org.il", "ac.il", "gov.il",
        "com.ru", "org.ru", "net.ru", "com.ua", "gov.ua", "com.pl", "net.pl", "org.pl",
        "com.es", "org.es", "gob.es", "co.it", "gov.it", "co.at", "or.at", "ac.at", "gv.at",
        "github.io", "gitlab.io", "herokuapp.com", "blogspot.com", "appspot.com", "netlify.app",
        "vercel.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "azurewebsites.net",
        "cloudfront.net", "amazonaws.com", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev",
        "onrender.com", "glitch.me", "repl.co", "ngrok.io", "ngrok-free.app", "trycloudflare.com",
    ]
}
