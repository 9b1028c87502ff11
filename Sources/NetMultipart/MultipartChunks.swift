#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A piece of an encoded form: framing and in-memory bodies, or a file read when its turn comes.
enum MultipartSegment: Sendable {
    case bytes(Data)
    case file(URL, size: Int64)
}

/// The encoded form as chunks of at most `chunkSize` bytes; small segments are packed together so
/// a form of thousands of small parts does not become thousands of tiny writes.
struct MultipartChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let segments: [MultipartSegment]
    let chunkSize: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(segments: segments, chunkSize: chunkSize)
    }

    struct Iterator: AsyncIteratorProtocol {
        private let segments: [MultipartSegment]
        private let chunkSize: Int
        private var index = 0
        private var offset = 0
        private var fileReader: FileChunkReader?

        init(segments: [MultipartSegment], chunkSize: Int) {
            self.segments = segments
            self.chunkSize = chunkSize
        }

        mutating func next() async throws -> Data? {
            var chunk = Data()
            while chunk.count < chunkSize, index < segments.count {
                switch segments[index] {
                case .bytes(let bytes):
                    let start = bytes.startIndex + offset
                    let take = Swift.min(chunkSize - chunk.count, bytes.count - offset)
                    chunk.append(bytes[start..<(start + take)])
                    offset += take
                    if offset == bytes.count {
                        index += 1
                        offset = 0
                    }
                case .file(let url, let size):
                    let reader: FileChunkReader
                    if let fileReader {
                        reader = fileReader
                    } else {
                        reader = try FileChunkReader(url: url, expectedSize: size)
                        fileReader = reader
                    }
                    if let piece = try reader.read(maximum: chunkSize - chunk.count) {
                        chunk.append(piece)
                    } else {
                        fileReader = nil
                        index += 1
                    }
                }
            }
            return chunk.isEmpty ? nil : chunk
        }
    }
}
