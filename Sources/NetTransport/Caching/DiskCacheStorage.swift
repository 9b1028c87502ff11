import Foundation
import NetCore

/// Responses on disk in a directory you name, surviving restarts, within a byte limit (least
/// recently used first out).
///
/// Each key is one file, written to a temporary name and renamed into place, so a reader never
/// sees half an entry. Every file carries a checksum: a truncated, corrupted or foreign file is
/// deleted when read and treated as absent, never served. Files are created readable by their owner
/// only (0600), in a directory created 0700.
///
/// A key whose file can be neither replaced nor removed (an immutable or read-only file, a full
/// disk) is not served again by this instance until a write under it succeeds: that file holds
/// what an invalidation or a newer response was to replace. (Another instance opened on the same
/// directory, after a restart, reads such a file as it reads any other.)
public final class DiskCacheStorage: HTTPCacheStorage {
    private struct FileInfo: Sendable {
        var size: Int
        var lastUse: Date
    }

    /// The directory holding the entries.
    public let directory: URL
    /// The most the files may take together, in bytes.
    public let byteLimit: Int
    private let index: Locked<[String: FileInfo]>
    /// When a read or a write happens, as its file's modification time records it.
    private let now: @Sendable () -> Date
    /// File names that could not be replaced or removed: not served (see the type's comment).
    private let withheld = Locked(Set<String>())

    /// Version 2: entries carry the credentials that fetched them; a version 1 entry, which may
    /// not, is never read.
    private static let magic = Data("NETCACHE2\n".utf8)
    private static let suffix = ".netcache"

    /// Opens (creating if needed) the storage in `directory`, keeping at most `byteLimit` bytes.
    ///
    /// - Throws: `CocoaError` when the directory cannot be created or listed.
    public convenience init(directory: URL, byteLimit: Int = 64 << 20) throws {
        try self.init(directory: directory, byteLimit: byteLimit, now: { Date() })
    }

    /// The storage with `now` as its clock for the times of use it records (for tests: a time
    /// of their choosing).
    package init(directory: URL, byteLimit: Int, now: @escaping @Sendable () -> Date) throws {
        self.now = now
        self.directory = directory
        self.byteLimit = max(0, byteLimit)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var files: [String: FileInfo] = [:]
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            let name = url.lastPathComponent
            if name.hasPrefix(".tmp-") {
                try? FileManager.default.removeItem(at: url)  // a write interrupted by a crash
                continue
            }
            guard name.hasSuffix(Self.suffix), let values = try? url.resourceValues(forKeys: Set(keys)) else { continue }
            files[name] = FileInfo(size: values.fileSize ?? 0, lastUse: values.contentModificationDate ?? .distantPast)
        }
        index = Locked(files)
        evict(keeping: nil)
    }

    /// The bytes the entries take now.
    public var byteCount: Int { index.withLock { $0.values.reduce(0) { $0 + $1.size } } }

    /// The variants under `key`, read and checksummed from its file; a damaged file is deleted
    /// and reads as absent. Marks the key as the most recently used.
    public func variants(forKey key: String) -> [CachedResponse] {
        let name = Self.fileName(for: key)
        guard !withheld.withLock({ $0.contains(name) }) else { return [] }
        let url = directory.appendingPathComponent(name)
        // Only a regular file within the whole storage's limit, never through a link: anything
        // else (a link to /dev/zero, a FIFO, a huge file) reads as absent.
        guard let data = try? BodyFile.readRegular(url, limit: byteLimit, followingLinks: false) else { return [] }
        guard let variants = Self.decode(data, key: key) else {
            // Corrupt, truncated, or another key's file under a colliding name: never serve it.
            discard(name)
            return []
        }
        let now = self.now()
        _ = FileStatus.setModified(url.path, to: now)  // a file removed meanwhile keeps no time to set
        index.withLock { $0[name]?.lastUse = now }
        return variants
    }

    /// Writes the variants under `key` atomically (empty removes the file), then deletes least
    /// recently used files until the total fits; an entry larger than the whole limit is not kept.
    public func setVariants(_ variants: [CachedResponse], forKey key: String) {
        let name = Self.fileName(for: key)
        let url = directory.appendingPathComponent(name)
        guard !variants.isEmpty, let data = Self.encode(variants, key: key), data.count <= byteLimit else {
            discard(name)
            return
        }
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            try? FileManager.default.removeItem(at: temporary)  // a partial write (a full disk)
            discard(name)  // not replaced: the entry it held must not be served instead
            return
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            discard(name)
            return
        }
        index.withLock { $0[name] = FileInfo(size: data.count, lastUse: now()) }
        withheld.withLock { _ = $0.remove(name) }
        evict(keeping: name)
    }

    /// Removes the file `name`; one that stays (it could not be removed) is withheld from then on.
    private func discard(_ name: String) {
        index.withLock { $0[name] = nil }
        let path = directory.appendingPathComponent(name).path
        var status = stat()
        let stays = unlink(path) != 0 && errno != ENOENT && lstat(path, &status) == 0
        withheld.withLock { withheld in
            if stays { withheld.insert(name) } else { withheld.remove(name) }
        }
    }

    /// Removes every entry.
    public func removeAll() {
        let names = index.withLock { index in defer { index = [:] }; return Array(index.keys) }
        for name in Set(names).union(withheld.withLock { $0 }) { discard(name) }
    }

    /// Deletes least recently used files until the total is within the limit.
    private func evict(keeping kept: String?) {
        let limit = byteLimit
        let victims = index.withLock { index -> [String] in
            var total = index.values.reduce(0) { $0 + $1.size }
            var victims: [String] = []
            for (name, info) in index.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where total > limit && name != kept {
                victims.append(name)
                total -= info.size
                index[name] = nil
            }
            return victims
        }
        for name in victims { discard(name) }
    }

    // MARK: File format: magic, metadata length (UInt32 BE), JSON metadata, bodies, FNV-1a 64 (BE).

    private struct Metadata: Codable {
        var key: String
        var variants: [CachedResponse]
    }

    static func fileName(for key: String) -> String {
        String(fnv1a(Data(key.utf8)), radix: 16) + suffix
    }

    static func encode(_ variants: [CachedResponse], key: String) -> Data? {
        var withoutBodies = variants
        for index in withoutBodies.indices { withoutBodies[index].body = Data() }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        guard let metadata = try? encoder.encode(Metadata(key: key, variants: withoutBodies)),
            let metadataLength = UInt32(exactly: metadata.count)
        else { return nil }
        var data = magic
        data.append(contentsOf: withUnsafeBytes(of: metadataLength.bigEndian, Array.init))
        data.append(metadata)
        // Body lengths travel in the metadata's order as UInt64s, then the bodies.
        for variant in variants { data.append(contentsOf: withUnsafeBytes(of: UInt64(variant.body.count).bigEndian, Array.init)) }
        for variant in variants { data.append(variant.body) }
        data.append(contentsOf: withUnsafeBytes(of: fnv1a(data).bigEndian, Array.init))
        return data
    }

    static func decode(_ data: Data, key: String) -> [CachedResponse]? {
        let bytes = [UInt8](data)
        guard bytes.count >= magic.count + 4 + 8, bytes.starts(with: magic) else { return nil }
        let payload = bytes[..<(bytes.count - 8)]
        guard fnv1a(Data(payload)) == readInteger(bytes, at: bytes.count - 8) else { return nil }
        var offset = magic.count
        let metadataLength = Int(readInteger(bytes, at: offset, width: 4))
        offset += 4
        guard metadataLength <= payload.count - offset else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard var metadata = try? decoder.decode(Metadata.self, from: Data(bytes[offset..<(offset + metadataLength)])),
            metadata.key == key
        else { return nil }
        offset += metadataLength
        guard payload.count - offset >= 8 * metadata.variants.count else { return nil }
        var lengths: [Int] = []
        for _ in metadata.variants {
            lengths.append(Int(clamping: readInteger(bytes, at: offset)))
            offset += 8
        }
        for (index, length) in lengths.enumerated() {
            guard length <= payload.count - offset else { return nil }
            metadata.variants[index].body = Data(bytes[offset..<(offset + length)])
            offset += length
        }
        return offset == payload.count ? metadata.variants : nil
    }

    private static func readInteger(_ bytes: [UInt8], at offset: Int, width: Int = 8) -> UInt64 {
        bytes[offset..<(offset + width)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
