import Foundation
import NetCore

extension NetworkSession {
    /// The Server-Sent Events of `request`, as an `AsyncSequence` that reconnects when the
    /// connection drops (see ``NetworkEventSource``).
    ///
    /// ```swift
    /// for try await event in client.eventSource(for: "https://example.com/notifications") {
    ///     print(event.type, event.data)
    /// }
    /// ```
    public nonisolated func eventSource(
        for request: any NetworkRequestConvertible,
        reconnection: EventSourceReconnection = EventSourceReconnection(),
        lastEventID: String = "",
        maximumLineLength: Int = ServerSentEventDecoder.defaultMaximumLineLength,
        maximumEventLength: Int = ServerSentEventDecoder.defaultMaximumEventLength
    ) -> NetworkEventSource {
        NetworkEventSource(
            session: self, request: request, reconnection: reconnection, lastEventID: lastEventID,
            maximumLineLength: maximumLineLength, maximumEventLength: maximumEventLength
        )
    }
}
