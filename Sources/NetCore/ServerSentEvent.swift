/// One event of a Server-Sent Events stream (`text/event-stream`), as the WHATWG HTML standard's
/// parsing rules deliver it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, or `"message"` when it had none.
    public var type: String
    /// The event's `data:` lines, joined with `\n` (the last line's break is not kept).
    public var data: String
    /// The last event ID the stream set with an `id:` field, in this event or an earlier one
    /// (empty when none). An event source sends it as `Last-Event-ID` when it reconnects.
    public var lastEventID: String

    /// Creates an event.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}
