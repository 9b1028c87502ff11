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
        return try encoder.encode(Contents(cookies: cookies))
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
