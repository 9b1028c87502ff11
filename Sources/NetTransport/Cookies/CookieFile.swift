import Foundation
import NetCore

/// A cookie jar's file: `{"cookies": [...]}` in JSON, dates in ISO 8601, owner-only.
enum CookieFile {
    private struct Contents: Codable {
        var cookies: [NetworkCookie]
    }

    /// The most a jar file may take: a full jar (3,000 cookies of at most 4 KiB) with room to spare.
    static let maximumSize = 64 << 20

    static func read(_ url: URL) throws -> [NetworkCookie] {
        let data: Data
        do { data = try BodyFile.readRegular(url, limit: maximumSize, followingLinks: true) } catch {
            throw CookieJarError.unreadable(path: url.path, reason: "\(error)")
        }
        return try decode(data, path: url.path)
    }

    /// The cookies in a jar file's bytes.
    static func decode(_ data: Data, path: String) throws -> [NetworkCookie] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode(Contents.self, from: data).cookies } catch {
            throw CookieJarError.malformed(path: path, reason: "\(error)")
        }
    }

    /// The bytes of a jar file holding `cookies`.
    static func encode(_ cookies: [NetworkCookie]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let writable = cookies.map { cookie in
            var cookie = cookie
            cookie.expires = cookie.expires.map(Self.writable)
            cookie.created = Self.writable(cookie.created)
            return cookie
        }
        return try encoder.encode(Contents(cookies: writable))
    }

    /// `date` within years 1 to 4000 (`Date`'s distant past and future): Foundation writes a
    /// date far outside them, or one that is not a number, as ISO 8601 text its own decoder
    /// refuses, so the whole jar would not read back (measured on Swift 6.3.1); a jar's dates
    /// come from its clock and from the cookies it was given. Beyond those years an expiry means
    /// the same on either side; not a number counts as the distant past.
    static func writable(_ date: Date) -> Date {
        guard !date.timeIntervalSinceReferenceDate.isNaN else { return .distantPast }
        return min(max(date, .distantPast), .distantFuture)
    }

    /// Replaces the jar at `url` atomically: a reader never sees half a jar.
    static func write(_ cookies: [NetworkCookie], to url: URL) throws {
        do {
            try BodyFile.replacePrivately(url, with: try encode(cookies))
        } catch {
            throw CookieJarError.unwritable(path: url.path, reason: "\(error)")
        }
    }
}
