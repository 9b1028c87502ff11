import Foundation
import NetCore

/// The state of one iteration of a ``NetworkEventSource``: a reference, so that the many
/// suspension points of `next()` mutate one object rather than a large value across awaits.
/// Used by one task at a time (an iterator is not shared).
final class EventSourceReader {
    let source: NetworkEventSource
    private var connection: NetworkResponseBody.Iterator?
    private var decoder: ServerSentEventDecoder
    private var ready: [ServerSentEvent] = []
    private var position = 0
    private var pendingFailure: (any Error)?
    private var connectionDeliveredEvents = false
    private var connectionReceivedBytes = false
    /// Connections in a row that delivered no event: the backoff's exponent.
    private var eventlessInARow = 0
    /// Connections in a row that received nothing at all: what `maximumAttempts` limits.
    private var emptyInARow = 0
    private var hasConnected = false
    private var isFinished = false
    private var clock: (any Clock<Duration>)?

    var lastEventID: String { decoder.lastEventID }

    init(source: NetworkEventSource) {
        self.source = source
        decoder = ServerSentEventDecoder(lastEventID: source.lastEventID, maximumLineLength: source.maximumLineLength, maximumEventLength: source.maximumEventLength)
    }

    func next() async throws -> ServerSentEvent? {
        do {
            return try await nextEvent()
        } catch {
            isFinished = true
            connection = nil  // closes the connection now, not when the iterator goes away
            throw error
        }
    }

    private func nextEvent() async throws -> ServerSentEvent? {
        while position == ready.count {
            if let failure = pendingFailure {
                pendingFailure = nil
                throw failure
            }
            if isFinished { return nil }
            try Task.checkCancellation()
            guard connection != nil else {
                try await connect()
                continue
            }
            let chunk: Data?
            do {
                chunk = try await connection?.next()
            } catch let error where Self.isNetworkFailure(error) {
                try connectionEnded(by: error)
                continue
            }
            guard let chunk else {
                try connectionEnded(by: nil)
                continue
            }
            ready.removeAll(keepingCapacity: true)
            position = 0
            do {
                try decoder.decode(chunk, into: &ready)
            } catch {
                pendingFailure = error  // after the events that came before it
            }
            if !chunk.isEmpty { connectionReceivedBytes = true }
            if !ready.isEmpty { connectionDeliveredEvents = true }
        }
        defer { position += 1 }
        return ready[position]
    }

    /// Waits if this is a reconnection, then connects; a network failure counts as an attempt
    /// that received nothing, and the loop tries again.
    private func connect() async throws {
        if hasConnected {
            let delay = source.reconnection.delay(retry: decoder.reconnectionTime, failures: eventlessInARow)
            if delay > .zero {
                try await Self.sleep(for: delay, on: try await sessionClock())
            }
        }
        hasConnected = true
        let request = try connectionRequest()
        let stream: NetworkStreamResponse
        do {
            stream = try await source.session.requestStream(for: request)
        } catch let error where Self.isNetworkFailure(error) {
            eventlessInARow += 1
            try countEmpty(failure: error)
            return
        }
        let status = stream.response.statusCode.rawValue
        let contentType = stream.response.headers["Content-Type"]
        if status == 204 { throw NetworkError.stream(.stoppedByServer) }
        guard status == 200, Self.isEventStream(contentType) else {
            throw NetworkError.stream(.notAnEventStream(status: status, contentType: contentType))
        }
        decoder = ServerSentEventDecoder(lastEventID: decoder.lastEventID, reconnectionTime: decoder.reconnectionTime,
                                         maximumLineLength: source.maximumLineLength, maximumEventLength: source.maximumEventLength)
        connectionDeliveredEvents = false
        connectionReceivedBytes = false
        connection = stream.body.makeAsyncIterator()
    }

    /// The connection ended, cleanly (`error` nil) or by a network failure: the next loop
    /// reconnects, unless too many attempts in a row received nothing. A connection that
    /// received bytes but no event (heartbeat comments on a quiet feed) keeps the source going
    /// but lengthens the wait, so a server that sends a comment and closes cannot make it spin.
    private func connectionEnded(by error: (any Error)?) throws {
        connection = nil
        try Task.checkCancellation()
        eventlessInARow = connectionDeliveredEvents ? 0 : eventlessInARow + 1
        if connectionReceivedBytes {
            emptyInARow = 0
        } else {
            try countEmpty(failure: error ?? NetworkError.transport(.connectionLost("the server ended the event stream before sending a byte")))
        }
    }

    private func countEmpty(failure: any Error) throws {
        try Task.checkCancellation()
        emptyInARow += 1
        if let limit = source.reconnection.maximumAttempts, emptyInARow >= limit {
            throw NetworkError.stream(.reconnectionsExhausted(attempts: emptyInARow, lastFailure: "\(failure)"))
        }
    }

    private func connectionRequest() throws -> NetworkRequest {
        var request = try source.request.asNetworkRequest()
        if !request.headers.contains(name: "Accept") { try request.headers.set(name: "Accept", value: "text/event-stream") }
        try request.headers.set(name: "Cache-Control", value: "no-store")
        if !decoder.lastEventID.isEmpty { try request.headers.set(name: "Last-Event-ID", value: decoder.lastEventID) }
        return request
    }

    private func sessionClock() async throws -> any Clock<Duration> {
        if let clock { return clock }
        let clock = await source.session.clock
        self.clock = clock
        return clock
    }

    private static func sleep<C: Clock<Duration>>(for delay: Duration, on clock: C) async throws {
        try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
    }

    /// A failure of the connection itself, after which the standard reconnects.
    private static func isNetworkFailure(_ error: any Error) -> Bool {
        guard case .transport(let failure) = error as? NetworkError else { return false }
        switch failure {
        case .cannotConnect, .timedOut, .connectionLost: return true
        default: return false
        }
    }

    /// `text/event-stream`, with or without parameters, in any case.
    private static func isEventStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }
}
