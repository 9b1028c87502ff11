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
///   that is not the network's (a TLS error, an interceptor's error, a bad request). An event ID
///   that cannot be sent as a header field (it holds a control character other than tab) stops
///   the source at the next connection with ``NetworkError/RequestFailure/invalidHeader(name:reason:)``
///   for `Last-Event-ID`, rather than reconnect without it and have the server start over.
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
        private let reader: EventSourceReader

        init(source: NetworkEventSource) {
            reader = EventSourceReader(source: source)
        }

        /// The ID of the last event received (the standard's "last event ID string"), sent as
        /// `Last-Event-ID` on the next connection.
        public var lastEventID: String { reader.lastEventID }

        /// The next event. Throws `CancellationError` when the task is cancelled; after it has
        /// thrown anything, `nil`.
        public mutating func next() async throws -> ServerSentEvent? {
            try await reader.next()
        }
    }
}
