import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// A request body file on its way out through URLSession: the caller's, or one Net spooled from a
/// stream, with the size it must have.
///
/// On Linux it goes out as an `InputStream` of Net's own (``makeStream()``), not with
/// `uploadTask(fromFile:)`: FoundationNetworking reads a file body ahead on a queue of its own and,
/// when that read lands after the task was stopped (cancelled, timed out, failed), resumes the
/// removed transfer with a `try!` that stops the process (libcurl 43: Docs/Linux-notes.md). A
/// stream is read in place, on libcurl's thread, when libcurl asks, so nothing is pending when a
/// task stops. The stream also stops at the file's size and fails a file that shrank or grew on
/// the way, where libcurl 7.88 sent whatever the file held.
final class FileUpload: Sendable {
    let url: URL
    /// The bytes the request declares in its `Content-Length`.
    let size: Int64
    /// Written by Net from a stream, and Net's to delete.
    let spooled: Bool
    /// Why a stream of this file stopped sending, if one did: the exchange's error is libcurl's
    /// bare "aborted", this says which file and what happened to it.
    private let failure = Locked<NetworkError?>(nil)

    init(url: URL, size: Int64, spooled: Bool) {
        self.url = url
        self.size = size
        self.spooled = spooled
    }

    /// The first reason a stream of the file stopped, if any.
    var recordedFailure: NetworkError? { failure.withLock { $0 } }

    func record(_ error: NetworkError) {
        failure.withLock { if $0 == nil { $0 = error } }
    }

    #if canImport(FoundationNetworking)
    /// A new stream of the whole file: for the first send, and for libcurl's resend on a new
    /// connection when a reused one died before answering (it asks the delegate for the body
    /// again: `SessionDelegate`).
    func makeStream() -> InputStream {
        FileBodyInputStream(self)
    }
    #endif
}

#if canImport(FoundationNetworking)
/// One pass over a ``FileUpload``'s file for FoundationNetworking, which calls `open()`, then
/// `hasBytesAvailable` and `read(_:maxLength:)` for each piece libcurl asks for, on libcurl's
/// thread, and never from two threads at once. A read that fails returns -1, which
/// FoundationNetworking turns into libcurl's abort, so the request never goes out short or long.
///
/// The reads run on the session's work queue, which all of the transport's transfers share: a
/// file on a slow file system (NFS, FUSE, a disk spinning up) holds them up while it is read.
/// Reading ahead on another queue would bring back the pause and resume that could stop the
/// process; such files are better sent from `AsyncHTTPClientTransport`, which reads them off the
/// event loop.
final class FileBodyInputStream: InputStream {
    private let upload: FileUpload
    private var reader: FileChunkReader?
    private var remaining: Int64
    private var status: Stream.Status = .notOpen

    init(_ upload: FileUpload) {
        self.upload = upload
        remaining = upload.size
        super.init(data: Data())
    }

    override func open() {
        guard status == .notOpen else { return }
        do {
            reader = try FileChunkReader(url: upload.url, expectedSize: upload.size)
            status = .open
        } catch {
            fail(error)
        }
    }

    override func close() {
        reader = nil
        if status != .error { status = .closed }
    }

    override var streamStatus: Stream.Status { status }

    /// True while bytes remain, and after a failure: FoundationNetworking takes `false` for the
    /// end of the body, and only a read's -1 makes it abort.
    override var hasBytesAvailable: Bool { status == .error || (status == .open && remaining > 0) }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard status == .open, let reader else { return status == .error ? -1 : 0 }
        do {
            let piece = UnsafeMutableRawBufferPointer(start: buffer, count: maxLength)
            guard let count = try reader.read(into: piece) else { return 0 }
            remaining -= Int64(count)
            // The last piece goes out only if the file ends there: a file that grew fails now,
            // before the server has a request that looks whole.
            if remaining == 0 {
                _ = try reader.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0))
                // FoundationNetworking keeps the stream (and would keep the descriptor, and a
                // spooled file's blocks) until the task is freed, long after the last piece.
                self.reader = nil
            }
            return count
        } catch {
            fail(error)
            return -1
        }
    }

    private func fail(_ error: any Error) {
        status = .error
        reader = nil
        let failure = error as? NetworkError
            ?? .request(.unreadableBodyFile(path: upload.url.path, reason: String(describing: error)))
        upload.record(failure)
    }
}
#endif

#if canImport(FoundationNetworking)
/// One pass over a request body in memory for FoundationNetworking, copied into the buffer it
/// asks to fill. Foundation's `InputStream(data:)` does the same through CoreFoundation's stream
/// machinery, and took a 100 MB upload from about 62 ms (this) to 111 ms on the benchmark machine
/// (Benchmarks/NOTEBOOK.md, 2026-11-30).
final class DataBodyInputStream: InputStream {
    private let data: Data
    private var offset = 0
    private var status: Stream.Status = .notOpen

    init(_ data: Data) {
        self.data = data
        super.init(data: Data())
    }

    override func open() {
        if status == .notOpen { status = .open }
    }

    override func close() {
        status = .closed
    }

    override var streamStatus: Stream.Status { status }

    override var hasBytesAvailable: Bool { status == .open && offset < data.count }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard status == .open else { return 0 }
        let count = min(maxLength, data.count - offset)
        guard count > 0 else { return 0 }
        let start = data.startIndex + offset
        data.copyBytes(to: buffer, from: start..<(start + count))
        offset += count
        return count
    }
}
#endif
