import Foundation
import NetCore
@testable import NetTransport
import Testing

/// Where `BodyChannel` keeps what its reader has not taken (Docs/Linux-notes.md): its window in
/// memory (1 MiB, or 256 KiB for a body bound for a file), then a nameless spool file, written a
/// window's worth at a time.
@Suite("BodyChannel: the spool file's threshold")
struct BodyChannelSpoolTests {
    /// This process's descriptors open on a file in `directory` (a spool file is unlinked at
    /// once, so only `/proc/self/fd` still shows where it was made).
    private func openFiles(in directory: URL) -> Int {
        let prefix = directory.resolvingSymlinksInPath().path + "/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))?.hasPrefix(prefix) ?? false
        }.count
    }

    @Test("no spool file while the window holds what waits; one once a window more waits past it; every byte read back in order; the file closed with the channel",
          arguments: [ResponseBodyUse.streamed, .toFile])
    func threshold(use: ResponseBodyUse) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let window = BodyChannel.window(for: use)
        #expect(window == (use == .toFile ? 256 << 10 : 1 << 20))
        let chunk = 16 << 10
        var sent = Data()
        func hand(_ count: Int, to channel: BodyChannel) {
            for _ in 0..<(count / chunk) {
                let piece = Data((0..<chunk).map { UInt8(truncatingIfNeeded: (sent.count + $0) % 251) })
                sent.append(piece)
                #expect(channel.yield(piece) == nil)
            }
        }

        var channel: BodyChannel? = BodyChannel(spoolDirectory: directory, window: window)
        hand(window, to: try #require(channel))
        #expect(openFiles(in: directory) == 0, "a spool file with only the window waiting")
        // Past the window, chunks gather until a window's worth can be written at once.
        hand(window - chunk, to: try #require(channel))
        #expect(openFiles(in: directory) == 0, "a spool file before a whole block had gathered")
        hand(chunk, to: try #require(channel))
        #expect(openFiles(in: directory) == 1, "no spool file with two windows waiting")
        #expect(try TransportTest.contents(of: directory) == [], "the spool file has a name")

        var read = Data()
        do {
            let reader = try #require(channel)
            reader.finish(nil)
            while let part = try await reader.next() { read.append(part) }
        }
        #expect(read == sent)
        channel = nil
        #expect(openFiles(in: directory) == 0, "the spool file outlived its channel")
    }
}
