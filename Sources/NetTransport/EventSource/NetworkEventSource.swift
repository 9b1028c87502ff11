import Foundation
import NetCore

/// The Server-Sent Events of one request, across reconnections: what a browser's `EventSource`
/// does, as an `AsyncSequence`. Made by ``NetworkSession/eventSource(for:reconnection:lastEventID:maximumLineLength:maximumEventLength:)``.
///
/// Each connection is an ordinary ``NetworkSession/requestStream(for:)`` call, so the session's
/// interceptors, authentication refresh, retries, logging and deadline apply to it. The request
/// goes out with `Accept: text/event-stream`, `Cache-Control: no-store`, and, once the stream has
/// set an ID, `Last-Event-ID`.
///
/// - When a connection ends, cleanly or by a network failure, the source waits (see
///   ``EventSourceReconnection``, on the session's clock) and connects again.
/// - A 204 No Content stops it with ``NetworkError/StreamFailure/stoppedByServer``; any other
///   status than 200, or a content type other than `text/event-stream`, with
///   ``NetworkError/StreamFailure/notAnEventStream(status:contentType:)``. Neither is retried,
///   as the standard says.
/// - A line or an event past its limit throws (``ServerSentEventDecoder``), as does any failure
///   that is not the network's (a TLS error, an interceptor's error, a bad request).
///
/// All of its work happens inside `next()`: nothing runs in the background, so when the caller
/// stops iterating (breaks out, drops the iterator, or cancels its task) the connection closes and
/// the source never connects again.
public struct NetworkEventSource: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    let session: any NetworkSession
    let request: any NetworkRequestConvertible
    let reconnection: EventSourceReconnection
    let lastEventID: String
    let maximumLineLength: Int
    let maximumEventLength: Int

    /// Connects on the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Reads events across connections; see ``NetworkEventSource``.
    public struct Iterator: AsyncIteratorProtocol {
        private let source: NetworkEventSource
        private var connection: NetworkResponseBody.Iterator?
        private var decoder: ServerSentEventDecoder
        private var ready: [ServerSentEvent] = []
        private var position = 0
        private var pendingFailure: (any Error)?
        private var connectionDeliveredEvents = false
        private var failuresInARow = 0
        private var hasConnected = false
        private var isFinished = false
        private var clock: (any Clock<Duration>)?

        /// The ID of the last event received (the standard's "last event ID string"), sent as
        /// `Last-Event-ID` on the next connection.
        public var lastEventID: String { decoder.lastEventID }

        init(source: NetworkEventSource) {
            self.source = source
            decoder = ServerSentEventDecoder(lastEventID: source.lastEventID, maximumLineLength: source.maximumLineLength, maximumEventLength: source.maximumEventLength)
        }

        /// The next event; `nil` only after the source has thrown or its task was cancelled.
        public mutating func next() async throws -> ServerSentEvent? {
            do {
                return try await nextEvent()
            } catch {
                isFinished = true
                connection = nil  // closes the connection now, not when the iterator goes away
                throw error
            }
        }

        private mutating func nextEvent() async throws -> ServerSentEvent? {
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
                if !ready.isEmpty { connectionDeliveredEvents = true }
            }
            defer { position += 1 }
            return ready[position]
        }

        /// Waits if this is a reconnection, then connects; a network failure counts as an attempt
        /// without events, and the loop tries again.
        private mutating func connect() async throws {
            if hasConnected {
                let delay = source.reconnection.delay(retry: decoder.reconnectionTime, failures: failuresInARow)
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
                try count(failure: error)
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
            connection = stream.body.makeAsyncIterator()
        }

        /// The connection ended, cleanly (`error` nil) or by a network failure: the next loop
        /// reconnects, unless too many attempts in a row delivered nothing.
        private mutating func connectionEnded(by error: (any Error)?) throws {
            connection = nil
            try Task.checkCancellation()
            if connectionDeliveredEvents {
                failuresInARow = 0
            } else {
                try count(failure: error ?? NetworkError.transport(.connectionLost("the server ended the event stream without an event")))
            }
        }

        private mutating func count(failure: any Error) throws {
            try Task.checkCancellation()
            failuresInARow += 1
            if let limit = source.reconnection.maximumAttempts, failuresInARow >= limit {
                throw NetworkError.stream(.reconnectionsExhausted(attempts: failuresInARow, lastFailure: "\(failure)"))
            }
        }

        private func connectionRequest() throws -> NetworkRequest {
            var request = try source.request.asNetworkRequest()
            if !request.headers.contains(name: "Accept") { try request.headers.set(name: "Accept", value: "text/event-stream") }
            try request.headers.set(name: "Cache-Control", value: "no-store")
            if !decoder.lastEventID.isEmpty { try request.headers.set(name: "Last-Event-ID", value: decoder.lastEventID) }
            return request
        }

        private mutating func sessionClock() async throws -> any Clock<Duration> {
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
}
