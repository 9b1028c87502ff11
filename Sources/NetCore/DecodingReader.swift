#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A decoder fed a byte stream chunk by chunk: Server-Sent Events, JSON Lines.
protocol ChunkDecoder {
    associatedtype Output
    /// Appends what `chunk` completes to `output`; on a throw, `output` keeps what came before.
    mutating func decode(_ chunk: Data, into output: inout [Output]) throws
    /// What the end of the input completes, if anything.
    mutating func finish() throws -> Output?
}

/// The one loop behind the decoded sequences: pulls chunks, hands out what each completes in
/// order, and throws a failure (the chunks' or the decoder's) only after the values that came
/// before it. After the end or a failure it returns `nil`, reads no further, and lets go of the
/// chunks' iterator (a body's reader holds its connection until let go).
struct DecodingReader<Chunks: AsyncIteratorProtocol, Decoder: ChunkDecoder> where Chunks.Element == Data {
    private var chunks: Chunks?
    var decoder: Decoder
    private var ready: [Decoder.Output] = []
    private var position = 0
    private var failure: (any Error)?

    init(chunks: Chunks, decoder: Decoder) {
        self.chunks = chunks
        self.decoder = decoder
    }

    mutating func next() async throws -> Decoder.Output? {
        while position == ready.count {
            if let failure {
                self.failure = nil
                throw failure
            }
            guard chunks != nil else { return nil }  // ended
            let chunk: Data?
            do {
                chunk = try await chunks?.next()
            } catch {
                end()
                throw error
            }
            guard let chunk else {
                end()
                return try decoder.finish()
            }
            ready.removeAll(keepingCapacity: true)
            position = 0
            do {
                try decoder.decode(chunk, into: &ready)
            } catch {
                failure = error
                end()
            }
        }
        defer { position += 1 }
        return ready[position]
    }

    private mutating func end() {
        chunks = nil
    }
}
