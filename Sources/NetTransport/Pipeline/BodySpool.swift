import Foundation
import NetCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The part of a ``BodyChannel``'s body past its memory window: gathered into blocks, written to
/// a nameless temporary file, and read back in order. A value in the channel's locked state,
/// used only under its lock.
struct BodySpool: Sendable {
    /// The most bytes read back from the file at once.
    static let readSize = 256 << 10

    private var fd: Int32 = -1
    private var written: Int64 = 0
    private var read: Int64 = 0
    /// Spilled chunks not yet written to the file: newer than everything in it.
    private var pending = Data()
    /// Whether chunks go here rather than to memory: from the first spilled chunk until all that
    /// was spooled has been read back.
    private(set) var isActive = false

    /// Bytes kept here and not read back yet, in the file and pending.
    var unread: Int64 { written - read + Int64(pending.count) }

    /// Keeps `data` after everything kept so far; once `block` bytes are pending they are written
    /// to the file (created in `directory` on the first write), so the writing keeps up with the
    /// network.
    mutating func append(_ data: Data, block: Int, directory: URL) throws {
        isActive = true
        pending.append(data)
        guard pending.count >= block else { return }
        if fd < 0 { fd = try BodyFile.openNameless(in: directory) }
        try BodyFile.write(pending, toDescriptor: fd, at: written, path: "(spool file)")
        written += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// The oldest bytes kept, up to ``readSize``; `nil` when nothing is kept, and the spool is
    /// then inactive again, its file emptied for the next spill.
    mutating func next() throws -> Data? {
        guard isActive else { return nil }
        if read == written {
            // The file is drained: what is left was spilled after its last write.
            let data = pending
            pending = Data()
            if fd >= 0 { _ = ftruncate(fd, 0) }
            (read, written, isActive) = (0, 0, false)
            return data.isEmpty ? nil : data
        }
        let count = Int(min(Int64(Self.readSize), written - read))
        var data = Data(count: count)
        let got = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(read)) }
        guard got == count else {
            throw NetworkError.transport(.cannotWriteBody(path: "(spool file)", reason: "the spooled body could not be read back"))
        }
        read += Int64(count)
        return data
    }

    /// Drops everything kept and closes the file.
    mutating func discard() {
        if fd >= 0 { _ = close(fd) }
        fd = -1
        pending = Data()
        (read, written, isActive) = (0, 0, false)
    }
}
