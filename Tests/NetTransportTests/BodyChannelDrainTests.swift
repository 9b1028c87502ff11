import Foundation
import NetCore
@testable import NetTransport
import Synchronization
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // TestTiming
#endif

/// `BodyChannel.drain`, the path of every download to a file on URLSessionTransport: what waits
/// for the reader is written first, then each chunk on the thread that hands it over. Each test
/// proves its point by what the file holds when a call returns; time limits only catch a hang.
@Suite("BodyChannel: a body drained into a file")
struct BodyChannelDrainTests {
    static let chunkSize = 64 << 10
    static let hang = TestTiming.scaled(.seconds(20))

    /// `count` bytes of a pattern that shows order (byte i = i % 251), from `offset` on.
    static func pattern(from offset: Int, count: Int) -> Data {
        Data((offset..<(offset + count)).map { UInt8($0 % 251) })
    }

    static func temporaryFile() throws -> (URL, FileHandle) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-drain-test-\(UUID().uuidString)")
        return (url, try BodyFile.create(at: url))
    }

    static func size(of url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Waits until the drain writes chunks where they arrive: the event the tests act on.
    static func waitUntilWritingAsItArrives(_ channel: BodyChannel) async throws {
        let limit = ContinuousClock.now + hang
        while !channel.writesAsItArrives {
            try #require(ContinuousClock.now < limit, "the drain never began writing chunks as they arrive")
            try await Task.sleep(for: .milliseconds(1))  // not a yield: a yield loop keeps a core busy
        }
    }

    @Test("what waits (in memory and spooled) is written first, then each chunk before its hand-over returns, all in order")
    func ordered() async throws {
        let channel = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        // 2.5 MiB before anyone reads: 1 MiB in memory, the rest spooled to disk or waiting to be.
        var offset = 0
        for _ in 0..<40 {
            #expect(channel.yield(Self.pattern(from: offset, count: Self.chunkSize)) == nil)
            offset += Self.chunkSize
        }
        let waited = offset
        let (url, file) = try Self.temporaryFile()
        defer { try? file.close(); BodyFile.remove(url) }
        let reports = Mutex<[Int64]>([])
        let drain = Task {
            try await channel.drain(into: FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0) { total in
                reports.withLock { $0.append(total) }
            })
        }
        try await Self.waitUntilWritingAsItArrives(channel)
        #expect(try Self.size(of: url) == waited)
        for _ in 0..<3 {
            #expect(channel.yield(Self.pattern(from: offset, count: Self.chunkSize)) == nil)
            offset += Self.chunkSize
            // Written by the hand-over itself, not later by the reader.
            #expect(try Self.size(of: url) == offset)
        }
        channel.finish(nil)
        #expect(try await drain.value == Int64(offset))
        #expect(try Data(contentsOf: url) == Self.pattern(from: 0, count: offset))
        let totals = reports.withLock { $0 }
        #expect(totals.last == Int64(offset) && zip(totals, totals.dropFirst()).allSatisfy { $0 < $1 }, "\(totals)")
    }

    @Test("cancelling the drain stops the producer, and a chunk handed over after it is not written")
    func cancelled() async throws {
        let channel = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        let stopped = Mutex(false)
        channel.onCancel { stopped.withLock { $0 = true } }
        let (url, file) = try Self.temporaryFile()
        defer { try? file.close(); BodyFile.remove(url) }
        let drain = Task { try await channel.drain(into: FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0)) }
        try await Self.waitUntilWritingAsItArrives(channel)
        #expect(channel.yield(Self.pattern(from: 0, count: Self.chunkSize)) == nil)
        drain.cancel()
        await #expect(throws: CancellationError.self) { _ = try await drain.value }
        #expect(stopped.withLock { $0 })
        #expect(channel.yield(Self.pattern(from: Self.chunkSize, count: Self.chunkSize)) == nil)
        #expect(try Self.size(of: url) == Self.chunkSize)
    }

    @Test("a progress handler told of a chunk written where it arrives may cancel the call", .timeLimit(.minutes(3)))
    func progressCancels() async throws {
        let channel = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        let (url, file) = try Self.temporaryFile()
        defer { try? file.close(); BodyFile.remove(url) }
        let drain = Mutex<Task<Int64, any Error>?>(nil)
        let reports = Mutex<[Int64]>([])
        // A handler that stops the call at its first report, as one holding a size cap may: the
        // cancel cancels the channel, so the report must not be made inside the channel's lock.
        let writer = FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0) { offset in
            reports.withLock { $0.append(offset) }
            drain.withLock { $0 }?.cancel()
        }
        let task = Task { try await channel.drain(into: writer) }
        drain.withLock { $0 = task }
        try await Self.waitUntilWritingAsItArrives(channel)
        // Handed over here, as URLSession's queue would: written, reported, and the report cancels.
        #expect(channel.yield(Self.pattern(from: 0, count: Self.chunkSize)) == nil)
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(channel.yield(Self.pattern(from: Self.chunkSize, count: Self.chunkSize)) == nil)
        #expect(reports.withLock { $0 } == [Int64(Self.chunkSize)])
        #expect(try Data(contentsOf: url) == Self.pattern(from: 0, count: Self.chunkSize))
    }

    @Test("cancelled after the body ended, the drain still reports every byte the file got")
    func cancelledAfterTheEnd() async throws {
        let channel = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        let (url, file) = try Self.temporaryFile()
        defer { try? file.close(); BodyFile.remove(url) }
        #expect(channel.yield(Self.pattern(from: 0, count: Self.chunkSize)) == nil)
        let drain = Task { try await channel.drain(into: FileWriter(fd: file.fileDescriptor, path: url.path, offset: 0)) }
        try await Self.waitUntilWritingAsItArrives(channel)
        #expect(channel.yield(Self.pattern(from: Self.chunkSize, count: Self.chunkSize)) == nil)
        channel.finish(nil)
        // The end is handed over; a cancel now may come before the drain has run again.
        drain.cancel()
        #expect(try await drain.value == Int64(2 * Self.chunkSize))
        #expect(try Data(contentsOf: url) == Self.pattern(from: 0, count: 2 * Self.chunkSize))
    }

    @Test("a chunk that cannot be written (a full disk) ends the drain with cannotWriteBody, waiting or arriving",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs Linux's /dev/full, whose writes fail with ENOSPC"))
    func fullDisk() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        // A chunk that waited for the reader: the drain's own write fails.
        let waiting = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        #expect(waiting.yield(Self.pattern(from: 0, count: Self.chunkSize)) == nil)
        let first = await #expect(throws: NetworkError.self) {
            _ = try await waiting.drain(into: FileWriter(fd: full.fileDescriptor, path: "/dev/full", offset: 0))
        }
        guard case .transport(.cannotWriteBody(path: "/dev/full", _))? = first else {
            Issue.record("expected cannotWriteBody, got \(String(describing: first))")
            return
        }
        // A chunk arriving once the drain writes as it arrives: the hand-over reports the error,
        // and the producer ends the body with it, as URLSessionTransport's task bridge does.
        let arriving = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        let drain = Task { try await arriving.drain(into: FileWriter(fd: full.fileDescriptor, path: "/dev/full", offset: 0)) }
        try await Self.waitUntilWritingAsItArrives(arriving)
        let error = try #require(arriving.yield(Self.pattern(from: 0, count: Self.chunkSize)))
        arriving.finish(error)
        let second = await #expect(throws: NetworkError.self) { _ = try await drain.value }
        guard case .transport(.cannotWriteBody(path: "/dev/full", _))? = second else {
            Issue.record("expected cannotWriteBody, got \(String(describing: second))")
            return
        }
    }
}
