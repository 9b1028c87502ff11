#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore

/// A request body as AsyncHTTPClient pulls it: 256 KiB at a time from memory, a file or a stream,
/// so a file is never in memory as a whole, with upload progress per piece handed over.
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
    // 256 KiB: fewer hand-overs to the event loop per megabyte (64 KiB cost ~15 % on a 100 MB upload).
    static let chunkSize = 256 * 1024

    /// How `body` goes to AsyncHTTPClient: nothing, one buffer (a body in memory no larger than
    /// one chunk, when `whole` allows it: only the delegate API reports a buffer's progress), or
    /// chunks pulled by a task as the connection takes them.
    static func body(for body: NetworkRequestBody, whole: Bool, progress: TransportProgressHandler?,
                     record: ExchangeMetricsRecorder?) throws -> Upload {
        let chunks: UploadChunks
        switch body {
        case .none:
            return Upload(source: .none, sentWhole: nil)
        case .data(let data) where whole && data.count <= chunkSize:
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
            chunks = UploadChunks(source: .data(data), length: Int64(data.count), progress: progress, record: record)
        case .file(let url):
            chunks = UploadChunks(source: .file(url), length: try body.contentLength(), progress: progress, record: record)
        case .stream(let stream):
            chunks = UploadChunks(source: .stream(stream), length: stream.length, progress: progress, record: record)
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
        case .data(let data): Iterator(state: .data(data, 0), length: length, progress: progress, record: record)
        case .file(let url): Iterator(state: .file(url, nil), length: length, progress: progress, record: record)
        case .stream(let stream): Iterator(state: .stream(stream.makeReader()), length: length, progress: progress, record: record)
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        enum State {
            case data(Data, Int)
            case file(URL, FileHandle?)
            case stream(NetworkBodyStream.Reader)
            case done
        }

        var state: State
        let length: Int64?
        let progress: TransportProgressHandler?
        let record: ExchangeMetricsRecorder?
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            let piece: Data?
            switch state {
            case .data(let data, let offset):
                if offset < data.count {
                    let end = Swift.min(data.count, offset + UploadChunks.chunkSize)
                    piece = data.subdata(in: offset..<end)
                    state = .data(data, end)
                } else {
                    piece = nil
                }
            case .file(let url, let open):
                let handle: FileHandle
                if let open {
                    handle = open
                } else {
                    do { handle = try FileHandle(forReadingFrom: url) } catch {
                        throw NetworkError.request(.unreadableBodyFile(path: url.path, reason: "\(error)"))
                    }
                }
                let data = try handle.read(upToCount: UploadChunks.chunkSize) ?? Data()
                if data.isEmpty {
                    try? handle.close()
                    piece = nil
                } else {
                    piece = data
                    state = .file(url, handle)
                }
            case .stream(var reader):
                piece = try await reader.next()
                state = .stream(reader)
            case .done:
                piece = nil
            }
            guard let piece else {
                state = .done
                record?.reached(.requestSent)
                return nil
            }
            sent += Int64(piece.count)
            record?.sentRequestBody(bytes: sent)
            progress?(NetworkProgress(direction: .upload, completedBytes: sent, expectedBytes: length))
            return ByteBuffer(bytes: piece)
        }
    }
}
#endif
