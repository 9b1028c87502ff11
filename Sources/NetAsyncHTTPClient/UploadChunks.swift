#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore

/// A request body as AsyncHTTPClient pulls it: 256 KiB at a time from memory, a file or a stream,
/// so a file is never in memory as a whole, with upload progress per piece handed over.
///
/// AsyncHTTPClient's async API pulls the next piece as soon as it has handed the last one to the
/// event loop, and pauses only once the event loop has found the socket full. A reader faster than
/// the event loop gets to run (a file in the page cache, on a busy core) would pile pieces up in
/// the event loop's queue meanwhile: 35 MB more at the peak of a 100 MB upload with the client on
/// one core. So after every ``drainInterval`` bytes the iterator waits until each event loop has
/// run what was queued before it, which bounds what is queued to about that many bytes (plus the
/// piece in hand and what the channel holds before it pauses the upload).
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    enum Source: Sendable {
        case data(Data)
        case file(URL)
        case stream(NetworkBodyStream)
    }

    let source: Source
    let length: Int64?
    let progress: TransportProgressHandler?
    /// Where the bytes handed over and the end of the body are noted, in a session call.
    let record: ExchangeMetricsRecorder?
    /// The event loops of the client that sends the body (see above).
    let loops: any EventLoopGroup
    // 256 KiB: fewer hand-overs to the event loop per megabyte (64 KiB cost ~15 % on a 100 MB upload).
    static let chunkSize = 256 * 1024
    /// Bytes handed over between two waits for the event loops: 1 MiB.
    static let drainInterval = 1 << 20

    /// Whether `body` is sent as one buffer when the call allows it (``body(for:whole:progress:record:loops:)``):
    /// no body, or one in memory no larger than a chunk.
    static func sentWhole(_ body: NetworkRequestBody) -> Bool {
        switch body {
        case .none: true
        case .data(let data): data.count <= chunkSize
        case .file, .stream: false
        }
    }

    /// How `body` goes to AsyncHTTPClient: nothing, one buffer (a body in memory no larger than
    /// one chunk, when `whole` allows it: only the delegate API reports a buffer's progress), or
    /// chunks pulled by a task as the connection takes them.
    static func body(for body: NetworkRequestBody, whole: Bool, progress: TransportProgressHandler?,
                     record: ExchangeMetricsRecorder?, loops: any EventLoopGroup) throws -> Upload {
        let chunks: UploadChunks
        switch body {
        case .none:
            return Upload(source: .none, sentWhole: nil)
        case .data(let data) where whole && sentWhole(body):
            let count = Int64(data.count)
            let report: @Sendable () -> Void = {
                if count > 0 {
                    record?.sentRequestBody(bytes: count)
                    progress?(NetworkProgress(direction: .upload, completedBytes: count, expectedBytes: count))
                }
                record?.reached(.requestSent)
            }
            let sentWhole = progress == nil && record == nil ? nil : report
            return Upload(source: .whole(ByteBuffer(bytes: data)), sentWhole: sentWhole)
        case .data(let data):
            chunks = UploadChunks(source: .data(data), length: Int64(data.count), progress: progress, record: record,
                                  loops: loops)
        case .file(let url):
            chunks = UploadChunks(source: .file(url), length: try body.contentLength(), progress: progress, record: record,
                                  loops: loops)
        case .stream(let stream):
            chunks = UploadChunks(source: .stream(stream), length: stream.length, progress: progress, record: record,
                                  loops: loops)
        }
        return Upload(source: .chunks(chunks), sentWhole: nil)
    }

    /// A request body on its way to AsyncHTTPClient.
    struct Upload {
        enum Source {
            case none
            case whole(ByteBuffer)
            case chunks(UploadChunks)
        }

        let source: Source
        /// Reports a body sent whole once it is written (a chunked body reports as it is pulled).
        let sentWhole: (@Sendable () -> Void)?

        /// The chunks of a body pulled as the connection takes them (AsyncHTTPClient's async API,
        /// which ends the response as it arrives and stops pulling when the request ends); a
        /// stream is made anew for each send, so a 307/308 or a second try sends it again.
        var streamed: HTTPClientRequest.Body? {
            guard case .chunks(let chunks) = source else { return nil }
            return .stream(chunks, length: chunks.length.map { .known($0) } ?? .unknown)
        }

        /// The body of a request made through ``ExchangeDelegate``: none, or one buffer.
        var whole: HTTPClient.Body? {
            guard case .whole(let buffer) = source else { return nil }
            return .byteBuffer(buffer)
        }
    }

    func makeAsyncIterator() -> Iterator {
        switch source {
        case .data(let data): Iterator(state: .data(data, 0), length: length, progress: progress, record: record, loops: loops)
        case .file(let url): Iterator(state: .file(url, nil), length: length, progress: progress, record: record, loops: loops)
        case .stream(let stream): Iterator(state: .stream(stream.makeReader()), length: length, progress: progress, record: record, loops: loops)
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        enum State {
            case data(Data, Int)
            case file(URL, FileChunkReader?)
            case stream(NetworkBodyStream.Reader)
            case done
        }

        var state: State
        let length: Int64?
        let progress: TransportProgressHandler?
        let record: ExchangeMetricsRecorder?
        let loops: any EventLoopGroup
        var sent: Int64 = 0
        /// Bytes handed over since the event loops last caught up.
        var undrained = 0

        /// The next piece, copied once: from the `Data` or read from the file straight into the
        /// buffer that is sent.
        mutating func next() async throws -> ByteBuffer? {
            if undrained >= UploadChunks.drainInterval {
                undrained = 0
                // All loops at once (the client's group is SwiftNIO's process-wide one, whose
                // loops may be busy with other connections), waiting for the slowest.
                let caughtUp = loops.makeIterator().map { $0.submit {} }
                for loop in caughtUp { try await loop.get() }
            }
            let piece: ByteBuffer?
            switch state {
            case .data(let data, let offset):
                if offset < data.count {
                    let end = Swift.min(data.count, offset + UploadChunks.chunkSize)
                    piece = data.withUnsafeBytes { ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
                    state = .data(data, end)
                } else {
                    piece = nil
                }
            case .file(let url, let open):
                // The length is the file's size when this send started: a file that changes size
                // while it is sent fails the upload instead of sending something else.
                let reader = try open ?? FileChunkReader(url: url, expectedSize: length ?? 0)
                var buffer = ByteBuffer()
                buffer.reserveCapacity(UploadChunks.chunkSize)
                let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: UploadChunks.chunkSize) {
                    try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(UploadChunks.chunkSize))) ?? 0
                }
                piece = count > 0 ? buffer : nil
                state = count > 0 ? .file(url, reader) : .done
            case .stream(var reader):
                do {
                    piece = try await reader.next().map { ByteBuffer(bytes: $0) }
                } catch let error where !(error is NetworkError || error is CancellationError) {
                    throw RequestBodySourceFailure(error: error)  // the caller's own: handed back as thrown (ErrorMapping)
                }
                state = .stream(reader)
            case .done:
                piece = nil
            }
            guard let piece else {
                state = .done
                record?.reached(.requestSent)
                return nil
            }
            sent += Int64(piece.readableBytes)
            undrained += piece.readableBytes
            record?.sentRequestBody(bytes: sent)
            progress?(NetworkProgress(direction: .upload, completedBytes: sent, expectedBytes: length))
            return piece
        }
    }
}
#endif
