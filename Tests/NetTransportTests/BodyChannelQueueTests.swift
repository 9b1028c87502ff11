import Foundation
import NetCore
@testable import NetTransport
import NetTestSupport
import Testing

/// `BodyChannel`'s queue in memory, for a reader that stays just behind its writer.
@Suite("BodyChannel: chunks already read are let go")
struct BodyChannelQueueTests {
    /// A chunk whose bytes say when they are freed.
    static func tracked(_ index: Int, freed: LockedValue<Set<Int>>) -> Data {
        let count = 1_024
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: UInt8(index % 251), count: count)
        return Data(bytesNoCopy: bytes, count: count, deallocator: .custom { pointer, _ in
            pointer.deallocate()
            _ = freed.withLock { $0.insert(index) }
        })
    }

    @Test("a reader one chunk behind: each chunk is freed once read and dropped, though the queue never empties")
    func takenChunksAreFreed() async throws {
        let freed = LockedValue<Set<Int>>([])
        let channel = BodyChannel(spoolDirectory: FileManager.default.temporaryDirectory)
        #expect(channel.yield(Self.tracked(0, freed: freed)) == nil)
        var longestQueue = 0
        for index in 1...200 {
            #expect(channel.yield(Self.tracked(index, freed: freed)) == nil)
            let chunk = try #require(try await channel.next())
            #expect(chunk.first == UInt8((index - 1) % 251), "chunks in order")
            longestQueue = max(longestQueue, channel.queuedChunkSlots)
        }
        // Every chunk read has been dropped by now; only the last one written still waits.
        #expect(freed.value == Set(0..<200))
        // The places of chunks taken are let go too (compacted), not kept until the queue empties.
        #expect(longestQueue <= 130, "the queue kept \(longestQueue) places")
        channel.finish(nil)
        #expect(try await channel.next()?.first == UInt8(200 % 251))
        #expect(try await channel.next() == nil)
    }
}
