import Foundation
import NetCore

/// The bytes an interrupted resumable download left beside its destination: `FILE.part` (the
/// body so far, byte for byte) and `FILE.part.json` (what it is part of: the URL and the
/// validator that lets a later request ask for the rest of *that* representation).
///
/// A partial file without a usable record is never continued: without a validator a server could
/// send the rest of a different version, and the result would be a corrupt file.
struct PartialDownload {
    /// What the partial bytes belong to.
    struct Record: Codable, Equatable {
        var url: String
        /// The `If-Range` value (RFC 9110 §13.1.5): a strong entity tag, or, for a response with
        /// no entity tag, a Last-Modified date strong by §8.8.2.2 (a minute or more before the
        /// response's `Date`). A weak tag makes the response impossible to continue: a client
        /// may send neither it nor a date when it has one.
        var ifRange: String
    }

    let destination: URL
    let partURL: URL
    let recordURL: URL

    init(destination: URL) {
        self.destination = destination
        partURL = URL(fileURLWithPath: destination.path + ".part")
        recordURL = URL(fileURLWithPath: destination.path + ".part.json")
    }

    /// Throws the error writing `FILE.part.json` would end with, when its name cannot exist in
    /// its folder (``BodyFile/longestName(in:)``): found after the server had answered, it cost a
    /// whole exchange, and the destination's own name was valid.
    func checkNames() throws {
        let name = recordURL.lastPathComponent
        let longest = BodyFile.longestName(in: recordURL.deletingLastPathComponent())
        guard name.utf8.count > longest else { return }
        throw NetworkError.transport(.cannotWriteBody(
            path: recordURL.path,
            reason: "a resumable download keeps FILE.part and FILE.part.json beside the file, and this name is \(name.utf8.count) bytes, past the \(longest) a file name holds there"))
    }

    /// The largest record read back: a URL and a validator.
    static let recordLimit = 1 << 20

    /// Where a request for `url` can continue: the partial file's length and its `If-Range`
    /// value, when there are partial bytes recorded for this URL with a validator.
    func resumePoint(for url: URL) -> (offset: Int64, ifRange: String)? {
        // Bounded, and never through a link: a record is a few hundred bytes, and what sits at
        // its name (a FIFO, a link to /dev/zero) is not the server's to choose but not ours either.
        guard let data = try? BodyFile.readRegular(recordURL, limit: Self.recordLimit, followingLinks: false),
              let record = try? JSONDecoder().decode(Record.self, from: data),
              record.url == url.absoluteString, case let ifRange = record.ifRange, !ifRange.isEmpty,
              let attributes = try? FileManager.default.attributesOfItem(atPath: partURL.path),
              let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
        else { return nil }
        return (size, ifRange)
    }

    /// The record for a response that may be continued later, or `nil` when it may not: no
    /// usable validator, or a content coding (byte offsets would then count encoded bytes, while
    /// the file holds decoded ones).
    static func record(for head: NetworkResponseHead, url: URL) -> Record? {
        guard !head.hasContentCoding else { return nil }
        if let tag = head.headers["ETag"]?.trimmingCharacters(in: .whitespaces) {
            return tag.hasPrefix("W/") || tag.isEmpty ? nil : Record(url: url.absoluteString, ifRange: tag)
        }
        guard let modifiedText = head.headers["Last-Modified"], let modified = RetryAfter.httpDate(modifiedText),
              let sent = head.headers["Date"].flatMap(firstDate), modified.addingTimeInterval(60) <= sent
        else { return nil }
        return Record(url: url.absoluteString, ifRange: modifiedText)
    }

    /// An HTTP-date, or the first of several a transport joined with `, ` (a server that sends
    /// `Date` twice; an IMF-fixdate is 29 characters).
    private static func firstDate(_ text: String) -> Date? {
        RetryAfter.httpDate(text) ?? RetryAfter.httpDate(String(text.prefix(29)))
    }

    /// Starts the partial file over, empty, with `record` (or none) describing it.
    func restart(recording record: Record?) throws -> FileHandle {
        BodyFile.remove(recordURL)
        let file = try BodyFile.create(at: partURL)
        if let record { try save(record) }
        return file
    }

    /// Opens the partial file to append at `offset` (cutting anything past it).
    func reopen(at offset: Int64) throws -> FileHandle {
        do {
            let file = try FileHandle(forWritingTo: partURL)
            try file.truncate(atOffset: UInt64(offset))
            try file.seek(toOffset: UInt64(offset))
            return file
        } catch {
            throw NetworkError.transport(.cannotWriteBody(path: partURL.path, reason: "\(error)"))
        }
    }

    /// Moves the complete file onto the destination and forgets the record.
    func complete() throws {
        try BodyFile.replace(destination, with: partURL)
        BodyFile.remove(recordURL)
    }

    /// Removes the partial file and its record.
    func discard() {
        BodyFile.remove(partURL)
        BodyFile.remove(recordURL)
    }

    private func save(_ record: Record) throws {
        do {
            try BodyFile.writePrivately(try JSONEncoder().encode(record), to: recordURL)
        } catch {
            throw NetworkError.transport(.cannotWriteBody(path: recordURL.path, reason: "\(error)"))
        }
    }
}

/// A `Content-Range: bytes first-last/complete` value (RFC 9110 §14.4); `complete` is `nil` for `*`.
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var complete: Int64?

    init(first: Int64, last: Int64, complete: Int64?) {
        self.first = first
        self.last = last
        self.complete = complete
    }

    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else { return nil }
        self.first = first
        self.last = last
        if parts[1] == "*" {
            complete = nil
        } else {
            guard let complete = Self.number(parts[1]), last < complete else { return nil }
            self.complete = complete
        }
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
