import Foundation
import NetCore
@testable import NetTransport
import NetTestSupport
import Testing

/// The disk storage: surviving a process restart, discarding damaged entries, keeping its limit.
@Suite("HTTP cache on disk")
struct HTTPDiskCacheTests {
    /// A fresh GET answer for `https://host/<path>` with `body`, stored at fixed times.
    private static func entry(path: String, body: Data) throws -> CachedResponse {
        CachedResponse(
            method: "GET", statusCode: 200, headerFields: [["Cache-Control", "max-age=60"]], url: try #require(URL(string: "https://host/\(path)")),
            body: body, requestTime: Date(timeIntervalSince1970: 1_700_000_000),
            responseTime: Date(timeIntervalSince1970: 1_700_000_001), varyValues: [:])
    }

    /// Runs CacheProbe (built beside the test bundle) off the cooperative pool.
    private func probe(_ directory: URL, _ url: URL) async throws -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("CacheProbe").path
        return String(decoding: try await runProcessOffPool(executable, [directory.path, url.absoluteString]), as: UTF8.self)
            .trimmingCharacters(in: .newlines)
    }

    @Test("A response stored by one process is served from disk by the next")
    func survivesRestart() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (id, url) = try await HTTPCacheTests.resource(["cc": "max-age=60"])
        let first = try await probe(directory, url)
        let second = try await probe(directory, url)
        #expect(first.hasPrefix("network \(id) #1"))
        #expect(second == "cache" + first.dropFirst("network".count))
        #expect(try await HTTPCacheTests.hits(id) == (1, 0))
    }

    @Test("Truncated, corrupted, garbage and foreign entries are discarded, never served, and replaced")
    func damagedEntries() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var resources: [(id: String, url: URL)] = []
        for _ in 0..<4 { resources.append(try await HTTPCacheTests.resource(["cc": "max-age=60", "size": "3000"])) }
        let writer = NetworkClient(transport: URLSessionTransport(), cache: try .disk(directory: directory))
        for resource in resources { _ = try await writer.requestData(for: resource.url) }
        func file(_ index: Int) -> URL {
            directory.appendingPathComponent(DiskCacheStorage.fileName(for: HTTPCache.key(method: "GET", url: resources[index].url)))
        }
        let intact = try Data(contentsOf: file(0))
        try intact.prefix(intact.count / 2).write(to: file(0))                // truncated
        var flipped = try Data(contentsOf: file(1))
        flipped[flipped.count / 2] ^= 0x01                                    // one bit changed in the body
        try flipped.write(to: file(1))
        try Data("not a cache entry".utf8).write(to: file(2))                 // garbage
        try intact.write(to: file(3))                                         // another key's valid entry

        // Reopened, as after a restart.
        let reader = NetworkClient(transport: URLSessionTransport(), cache: try .disk(directory: directory))
        for index in 0..<4 {
            let response = try await reader.requestData(for: resources[index].url)
            #expect(response.response.cacheStatus == .network, "entry \(index) was served")
            #expect(String(decoding: response.data, as: UTF8.self).hasPrefix("\(resources[index].id) #2"))
            // The damaged file was replaced by a good one.
            #expect(try await reader.requestData(for: resources[index].url).response.cacheStatus == .cache)
        }
    }

    @Test("An entry that is a link is not followed: a valid entry moved away and linked to reads as absent")
    func linkedEntry() throws {
        let directory = try TransportTest.makeDirectory()
        let elsewhere = try TransportTest.makeDirectory()
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let entry = try Self.entry(path: "x", body: Data("stored".utf8))  // whole milliseconds, as stored
        try DiskCacheStorage(directory: directory).setVariants([entry], forKey: "k")
        let name = DiskCacheStorage.fileName(for: "k")
        #expect(try DiskCacheStorage(directory: directory).variants(forKey: "k") == [entry])  // the control
        // A link could as well point at /dev/zero, or at a file of any size.
        try FileManager.default.moveItem(at: directory.appendingPathComponent(name), to: elsewhere.appendingPathComponent(name))
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent(name), withDestinationURL: elsewhere.appendingPathComponent(name))
        #expect(try DiskCacheStorage(directory: directory).variants(forKey: "k").isEmpty)
    }

    @Test("An entry of format version 1 (written before entries carried their credentials) is never read, its checksum intact")
    func versionOneEntry() throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entry = try Self.entry(path: "x", body: Data("stored".utf8))
        try DiskCacheStorage(directory: directory).setVariants([entry], forKey: "k")
        let file = directory.appendingPathComponent(DiskCacheStorage.fileName(for: "k"))
        let written = try Data(contentsOf: file)
        #expect(written.starts(with: Data("NETCACHE2\n".utf8)))
        /// The format's trailing FNV-1a 64, big-endian, recomputed so only the version differs.
        func sealed(_ payload: Data) -> Data {
            let sum = payload.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
            return payload + withUnsafeBytes(of: sum.bigEndian, Array.init)
        }
        var payload = Data(written.dropLast(8))
        #expect(sealed(payload) == written)  // the control: the checksum is computed as the storage does
        payload[payload.startIndex + 8] = UInt8(ascii: "1")
        try sealed(payload).write(to: file)
        #expect(try DiskCacheStorage(directory: directory).variants(forKey: "k").isEmpty)
    }

    @Test("Least recently used first out, across a restart: the order of uses in one storage decides what the next one evicts")
    func leastRecentlyUsedAcrossRestart() throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func entry(_ key: String) throws -> CachedResponse { try Self.entry(path: key, body: Data(repeating: 0x2E, count: 1_000)) }
        // Every entry's file has the same size (keys of one length): room for three, not four.
        let size = try #require(DiskCacheStorage.encode([try entry("k1")], key: "k1")).count
        let first = try DiskCacheStorage(directory: directory, byteLimit: 3 * size + size / 2)
        for key in ["k1", "k2", "k3"] { first.setVariants([try entry(key)], forKey: key) }
        // Written in the order k1, k2, k3, as the files say: fixed times in the past, so that a
        // storage that forgot the reads below would evict k1 first, whatever the kernel's clock.
        for (key, secondsAgo) in [("k1", 30.0), ("k2", 20.0), ("k3", 10.0)] {
            let path = directory.appendingPathComponent(DiskCacheStorage.fileName(for: key)).path
            #expect(FileStatus.setModified(path, to: Date(timeIntervalSinceNow: -secondsAgo)))
        }
        // Used since in this order: k3 least recently (written, never read), then k2, then k1.
        #expect(first.variants(forKey: "k2") == [try entry("k2")])
        #expect(first.variants(forKey: "k1") == [try entry("k1")])

        // Reopened, as after a restart: each new entry pushes out the least recently used.
        let second = try DiskCacheStorage(directory: directory, byteLimit: 3 * size + size / 2)
        #expect(second.byteCount == 3 * size)
        second.setVariants([try entry("k4")], forKey: "k4")
        #expect(second.variants(forKey: "k3").isEmpty)
        #expect(second.byteCount == 3 * size)
        second.setVariants([try entry("k5")], forKey: "k5")
        #expect(second.variants(forKey: "k2").isEmpty)
        for key in ["k1", "k4", "k5"] { #expect(second.variants(forKey: key) == [try entry(key)], "\(key)") }
    }

    @Test("A read's time reaches its entry's file at any fraction of a second, one that rounds up to a whole second in microseconds included")
    func useTimeAtEveryFraction() throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entry = try Self.entry(path: "k", body: Data("x".utf8))
        let path = directory.appendingPathComponent(DiskCacheStorage.fileName(for: "k")).path
        // 0.9999996 s is 999,999.6 µs: Foundation's setAttributes rounded it to 1,000,000 µs, which
        // utimes(2) refuses (EINVAL), so such a read left the file's older time behind. Near
        // 1.7e9 s a Date holds about a quarter of a microsecond: the bound tells the time kept
        // from one cut to whole microseconds (0.6 µs off at 0.9999996).
        for fraction in [0.0, 0.25, 0.999_999_4, 0.999_999_6, 0.999_999_9] {
            let read = Date(timeIntervalSince1970: 1_700_000_000 + fraction)
            let storage = try DiskCacheStorage(directory: directory, byteLimit: 1 << 20, now: { read })
            storage.setVariants([entry], forKey: "k")
            #expect(storage.variants(forKey: "k") == [entry], "\(fraction)")
            let written = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            #expect(abs(written.timeIntervalSince(read)) < 5e-7, "\(fraction): \(written.timeIntervalSince1970)")
        }
        // A link's own time is set, never its target's (entries are never read through links).
        let link = directory.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let before = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        #expect(FileStatus.setModified(link, to: Date(timeIntervalSince1970: 1_600_000_000)))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == before)
        #expect(!FileStatus.setModified(directory.appendingPathComponent("absent").path, to: Date()))
        #expect(!FileStatus.setModified(path, to: .init(timeIntervalSince1970: .infinity)))
    }

    @Test("A small disk storage keeps at most half its limit for one resource's variants, the newest first")
    func variantsByteBudgetOnDisk() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await HTTPCacheTests.expectHalfLimitForOneResource(in: DiskCacheStorage(directory: directory, byteLimit: 1 << 20))
    }

    @Test("A credential is written to disk as its digest, never as sent")
    func credentialsOnDiskAreDigests() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: try DiskCacheStorage(directory: directory)))
        let secrets = ["Authorization": "Bearer token-3f9c1a", "Cookie": "session=cookie-77d2e0", "X-API-Key": "key-a41b6c"]
        for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            // No `vary`: the server would echo the Vary'd header's value in the body it sends.
            let (id, url) = try await HTTPCacheTests.resource(["cc": "max-age=60"])
            let request = try NetworkRequest(url: url, headers: [.header(key: name, value: secret)])
            _ = try await client.requestData(for: request)
            #expect(try await client.requestData(for: request).response.cacheStatus == .cache, "\(name)")  // stored, and found by the digest
            #expect(try await HTTPCacheTests.hits(id) == (1, 0), "\(name)")
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == secrets.count)
        let contents = try files.map { try Data(contentsOf: $0) }
        // Each entry is keyed by its credential's digest.
        #expect(contents.allSatisfy { $0.range(of: Data("sha256:".utf8)) != nil })
        let written = contents.reduce(Data(), +)
        for (name, secret) in secrets {
            // The secret part alone: neither the header's value nor its token reaches the disk.
            let token = String(secret.split(whereSeparator: { $0 == " " || $0 == "=" }).last ?? "")
            #expect(written.range(of: Data(token.utf8)) == nil, "\(name)'s credential is on disk")
        }
    }

    @Test("The byte limit holds, entries are private files in a private directory, and no temporary file is left")
    func limitAndFiles() async throws {
        let parent = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("cache")  // made by the storage
        let storage = try DiskCacheStorage(directory: directory, byteLimit: 8_000)
        let directoryPermissions = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? NSNumber
        #expect(directoryPermissions?.intValue == 0o700)
        let client = NetworkClient(transport: URLSessionTransport(), cache: HTTPCache(storage: storage))
        var last: URL?
        for _ in 0..<10 {
            let (_, url) = try await HTTPCacheTests.resource(["cc": "max-age=60", "size": "1500"])
            _ = try await client.requestData(for: url)
            last = url
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        let total = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(total <= 8_000 && storage.byteCount == total)
        #expect(files.count >= 3 && files.count < 10)
        #expect(files.allSatisfy { $0.lastPathComponent.hasSuffix(".netcache") })
        for file in files {
            let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600)
        }
        #expect(try await client.requestData(for: try #require(last)).response.cacheStatus == .cache)
    }
}

/// A file the storage cannot replace or remove: made immutable with `chattr +i`, which stops even
/// root (the tests' user) from renaming over it or unlinking it, as a read-only file would stop
/// another user. What it holds must not be served once a newer write or an invalidation failed.
@Suite("HTTP cache on disk: an entry that cannot be replaced")
struct DiskCacheStuckEntryTests {
    private static func entry(_ body: String) throws -> CachedResponse {
        CachedResponse(
            method: "GET", statusCode: 200, headerFields: [["Cache-Control", "max-age=60"]], url: try #require(URL(string: "https://host/x")),
            body: Data(body.utf8), requestTime: Date(timeIntervalSince1970: 1_700_000_000), responseTime: Date(timeIntervalSince1970: 1_700_000_001), varyValues: [:])
    }

    private static func setImmutable(_ immutable: Bool, _ file: URL) async throws {
        _ = try await runProcessOffPool("/usr/bin/chattr", [immutable ? "+i" : "-i", file.path])
    }

    // `chattr +i` needs root (CI runs as root) and an ext2/3/4-like file system; elsewhere the
    // test reports chattr's failure rather than pass, as the README says of root-only tests.
    @Test("Neither a newer response nor an invalidation that failed to reach the file lets the old entry be served")
    func stuckEntryWithheld() async throws {
        let directory = try TransportTest.makeDirectory()
        let file = directory.appendingPathComponent(DiskCacheStorage.fileName(for: "k"))
        let storage = try DiskCacheStorage(directory: directory)
        try storage.setVariants([Self.entry("old")], forKey: "k")
        #expect(storage.variants(forKey: "k") == [try Self.entry("old")])  // the control
        try await Self.setImmutable(true, file)
        // A newer response cannot replace the file: the old one is not served instead.
        storage.setVariants([try Self.entry("new")], forKey: "k")
        #expect(storage.variants(forKey: "k").isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path))  // the file did stay
        // An invalidation cannot remove it either.
        storage.setVariants([], forKey: "k")
        #expect(storage.variants(forKey: "k").isEmpty)
        storage.removeAll()
        #expect(storage.variants(forKey: "k").isEmpty)
        try await Self.setImmutable(false, file)
        // Once a write succeeds, the key serves again; no temporary file was left behind.
        storage.setVariants([try Self.entry("new")], forKey: "k")
        #expect(storage.variants(forKey: "k") == [try Self.entry("new")])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [file.lastPathComponent])
        try FileManager.default.removeItem(at: directory)
    }
}
