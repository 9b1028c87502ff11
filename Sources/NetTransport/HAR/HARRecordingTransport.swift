import Foundation
import NetCore

/// A transport whose exchanges a ``HARRecorder`` records: the request when it is sent, the
/// response head when it arrives, the body as the caller reads it; the entry is complete when
/// the body ends, fails or is dropped.
struct HARRecordingTransport: Transport {
    let base: any Transport
    let recorder: HARRecorder

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        let order = recorder.nextOrder()
        let writer = HAREntryWriter(request: request, maximumBodySize: recorder.maximumBodySize)
        let started = ContinuousClock.now
        let startedDate = Date()
        let response: NetworkStreamResponse
        do {
            response = try await base.exchange(request, progress: progress)
        } catch {
            recorder.add(writer.failedEntry(error, started: startedDate, after: started.duration(to: .now)), order: order)
            throw error
        }
        let pending = PendingHAREntry(
            writer: writer, head: response.response, started: startedDate,
            wait: started.duration(to: .now), headArrived: .now, recorder: recorder, order: order)
        let body = response.body.wrapped(in: HARCapturingChunks(base: response.body, pending: pending)).onEnd { pending.finish() }
        return NetworkStreamResponse(response: response.response, body: body, originalRequest: response.originalRequest)
    }

    var responseLimits: ResponseLimits { base.responseLimits }
}

/// A body copied aside (up to the recorder's limit) as the caller reads it.
struct HARCapturingChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error

    let base: NetworkResponseBody
    let pending: PendingHAREntry

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), pending: pending)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: NetworkResponseBody.Iterator
        let pending: PendingHAREntry

        mutating func next() async throws -> Data? {
            do {
                guard let chunk = try await base.next() else {
                    pending.finish(complete: true)
                    return nil
                }
                pending.append(chunk)
                return chunk
            } catch {
                pending.finish(error: error)
                throw error
            }
        }
    }
}
