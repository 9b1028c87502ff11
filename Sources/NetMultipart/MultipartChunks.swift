#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore

/// A piece of an encoded form: framing and in-memory bodies, or a file read when its turn comes.
enum MultipartSegment: Sendable {
    case bytes(Data)
    /// With `forbidden`, the file is searched for that boundary marker as it is read, and the
    /// form fails if it holds one: a caller's own boundary could be in a file's bytes, which would
    /// then end the part early and forge the parts after it.
    case file(URL, size: Int64, forbidden: ForbiddenMarker?)
}

/// A boundary marker a file part must not contain, and the part's name for the error.
struct ForbiddenMarker: Sendable {
    let marker: Data
    let part: String
    let boundary: String
}

/// The encoded form as chunks of at most `chunkSize` bytes; small segments are packed together so
/// a form of thousands of small parts does not become thousands of tiny writes.
///
/// Each chunk is one allocation of exactly its size, which framing is copied into and files are
/// read into: no zero-filled buffer per piece and no second copy of a file's bytes, which took a
/// 1 MiB form from 0.38 to 0.57 of plain reading's speed (Benchmarks/NOTEBOOK.md, "Multipart
/// pieces read straight into the chunk sent").
struct MultipartChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let segments: [MultipartSegment]
    /// The sum of the segments' sizes (the form's `Content-Length`).
    let length: Int64
    let chunkSize: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(segments: segments, length: length, chunkSize: chunkSize)
    }

    struct Iterator: AsyncIteratorProtocol {
        private let segments: [MultipartSegment]
        private let chunkSize: Int
        private var remaining: Int64
        private var index = 0
        private var offset = 0
        private var fileReader: FileChunkReader?
        /// The last bytes of the file being read (one fewer than its forbidden marker's), so that
        /// a marker split between two reads is found.
        private var fileTail = Data()

        init(segments: [MultipartSegment], length: Int64, chunkSize: Int) {
            self.segments = segments
            self.remaining = length
            self.chunkSize = chunkSize
        }

        mutating func next() async throws -> Data? {
            let capacity = Int(Swift.min(Int64(chunkSize), Swift.max(remaining, 0)))
            guard capacity > 0 else { return nil }
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
            let filled: Int
            do {
                filled = try fill(chunk)
            } catch {
                chunk.deallocate()
                throw error
            }
            remaining -= Int64(filled)
            guard filled > 0, let base = chunk.baseAddress else {
                chunk.deallocate()
                return nil
            }
            // The chunk's memory goes to the `Data`, which frees it: no copy.
            return Data(bytesNoCopy: base, count: filled, deallocator: .custom { memory, _ in memory.deallocate() })
        }

        /// Copies framing and reads files into `chunk` until it is full or the form ends; returns
        /// how many bytes it wrote.
        private mutating func fill(_ chunk: UnsafeMutableRawBufferPointer) throws -> Int {
            var filled = 0
            while filled < chunk.count, index < segments.count {
                let room = UnsafeMutableRawBufferPointer(rebasing: chunk[filled...])
                switch segments[index] {
                case .bytes(let bytes):
                    let start = bytes.startIndex + offset
                    let take = Swift.min(room.count, bytes.count - offset)
                    filled += bytes.copyBytes(to: room, from: start..<(start + take))
                    offset += take
                    if offset == bytes.count {
                        index += 1
                        offset = 0
                    }
                case .file(let url, let size, let forbidden):
                    let reader: FileChunkReader
                    if let fileReader {
                        reader = fileReader
                    } else {
                        reader = try FileChunkReader(url: url, expectedSize: size)
                        fileReader = reader
                        fileTail = Data()
                    }
                    if let count = try reader.read(into: room) {
                        if let forbidden { try check(UnsafeRawBufferPointer(rebasing: room[..<count]), against: forbidden) }
                        filled += count
                    } else {
                        fileReader = nil
                        index += 1
                    }
                }
            }
            return filled
        }

        /// Throws if `piece`, read after ``fileTail``, completes the forbidden marker: searched
        /// where the two meet (a copy of at most twice the marker), then in `piece` where it lies.
        private mutating func check(_ piece: UnsafeRawBufferPointer, against forbidden: ForbiddenMarker) throws {
            let keep = forbidden.marker.count - 1
            var seam = fileTail
            seam.append(contentsOf: piece.prefix(keep))
            let inPlace = piece.baseAddress.map { Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: piece.count, deallocator: .none) } ?? Data()
            if seam.firstRange(of: forbidden.marker) != nil || inPlace.firstRange(of: forbidden.marker) != nil {
                throw NetworkError.request(.encodeError(
                    type: "multipart part \"\(forbidden.part)\"", description: "the file contains the boundary \"\(forbidden.boundary)\""))
            }
            seam.append(contentsOf: piece.dropFirst(keep).suffix(keep))
            fileTail = seam.suffix(keep)
        }
    }
}
