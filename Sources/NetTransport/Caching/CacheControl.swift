import Foundation
import NetCore

/// The `Cache-Control` directives a private client cache acts on (RFC 9111 §5.2), parsed from
/// every `Cache-Control` field of a message.
///
/// Unknown directives are ignored, as the RFC asks. A directive that appears twice keeps its first
/// value; an invalid delta-seconds value makes its directive count as absent, except `max-age`,
/// which the RFC says to treat as stale (so an invalid `max-age` means "already stale").
public struct CacheControl: Sendable, Hashable {
    /// `max-age`: the response is fresh for this long after it was generated.
    public var maxAge: Duration?
    /// `no-store`: never store the message.
    public var noStore = false
    /// `no-cache`: a stored response must be revalidated before every use.
    public var noCache = false
    /// `must-revalidate`: once stale, the response may not be used without revalidation.
    public var mustRevalidate = false
    /// `private`: only a private (per-user) cache may store the response; a client cache is one.
    public var isPrivate = false
    /// `public`: any cache may store the response, even for a request with `Authorization`.
    public var isPublic = false
    /// `immutable`: the response will not change while fresh (RFC 8246), so no reload revalidates it.
    public var immutable = false
    /// `stale-while-revalidate`: a stale response may be used for this long while it is revalidated
    /// in the background (RFC 5861).
    public var staleWhileRevalidate: Duration?
    /// `s-maxage`: a shared cache's lifetime; also allows storing an authorised response.
    public var sharedMaxAge: Duration?

    /// Whether a cache may serve the response to users other than the one who fetched it:
    /// `public`, or a positive `s-maxage`, and not `private` (RFC 9111 §5.2.2).
    var allowsSharing: Bool {
        !isPrivate && (isPublic || (sharedMaxAge ?? .zero) > .zero)
    }

    /// No directives.
    public init() {}

    /// Parses the values of every `Cache-Control` field (`fields` as they appear, in order).
    public init(fields: [String]) {
        var seen: Set<String> = []
        for field in fields {
            for directive in Self.split(field) {
                let (name, value) = directive
                guard seen.insert(name).inserted else { continue }
                switch name {
                case "max-age": maxAge = Self.seconds(value) ?? .zero
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "immutable": immutable = true
                case "stale-while-revalidate": staleWhileRevalidate = Self.seconds(value)
                case "s-maxage": sharedMaxAge = Self.seconds(value)
                default: break
                }
            }
        }
    }

    /// `name[=value]` pairs, names lower-cased, quoted values unquoted; commas inside quotes kept.
    static func split(_ field: String) -> [(String, String?)] {
        var directives: [(String, String?)] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespaces)
            current = ""
            guard !trimmed.isEmpty else { return }
            if let equals = trimmed.firstIndex(of: "=") {
                let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                directives.append((name, NetworkHeader.unquoted(value)))
            } else {
                directives.append((trimmed.lowercased(), nil))
            }
        }
        for character in field {
            if escaped { escaped = false; current.append(character); continue }
            if character == "\\" && inQuotes { escaped = true; current.append(character); continue }
            if character == "\"" { inQuotes.toggle() }
            if character == "," && !inQuotes { flush(); continue }
            current.append(character)
        }
        flush()
        return directives
    }

    /// A delta-seconds value (RFC 9111 §1.2.2): digits only; huge values are clamped to ten digits'
    /// worth (§1.2.2 allows the greatest value a cache represents), not refused, and leading zeros
    /// count for nothing (`00000000001234` is 1,234 seconds).
    static func seconds(_ value: String?) -> Duration? {
        guard let value, !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let digits = value.drop { $0 == "0" }
        return .seconds(digits.count > 10 ? 9_999_999_999 : Int(digits) ?? 0)
    }
}
