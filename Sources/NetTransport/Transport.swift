import Foundation
import NetCore

/// Moves one HTTP exchange over the wire: the pluggable bottom of Net's request pipeline.
///
/// A transport sends one validated ``NetworkRequest`` (with its in-memory, file or streamed
/// body) and returns as soon as the response head arrives, with the body as a
/// ``NetworkResponseBody`` the caller pulls. That is all it does: it never follows redirects,
/// never retries, never times a whole call, never decides where a body goes. Those are stages of
/// the pipeline above it (Docs/Architecture.md), written once for every transport:
/// ``URLSessionTransport`` for real traffic, ``StubTransport`` for tests of the code above it,
/// or your own.
///
/// Contract every transport keeps:
/// - failures are thrown as ``NetworkError`` (`.request` for a request that cannot be sent,
///   `.transport` for a failed exchange), from `exchange` or from reading the body;
/// - cancelling the calling task (waiting for the head) or the task reading the body throws
///   `CancellationError` promptly, without waiting for the server, and closes the connection;
///   so does dropping a body that was not read to its end;
/// - the body is read from the network only as fast as it is consumed, or, where the platform
///   cannot pause a read, buffered in bounded memory (each transport documents its buffer).
public protocol Transport: Sendable {
    /// Sends `request` and returns the response head with its body still to be read.
    ///
    /// - Parameters:
    ///   - request: the request to send; it is validated before anything goes on the wire.
    ///   - progress: called with upload progress, from any thread. (Download progress is
    ///     counted by whoever reads the body.)
    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse

    /// How large a body may grow: the decompression limit is the transport's to enforce (it
    /// decodes); the in-memory limit is applied by the pipeline to bodies read into memory.
    var responseLimits: ResponseLimits { get }
}

extension Transport {
    /// ``ResponseLimits/init(maximumInMemoryBodySize:decompression:)``'s defaults.
    public var responseLimits: ResponseLimits { ResponseLimits() }
}

/// A response whose body is still arriving: what a ``Transport`` returns and what
/// ``NetworkSession/requestStream(for:)`` gives the caller.
public struct NetworkStreamResponse: Sendable {
    /// Status, headers and final URL.
    public var response: NetworkResponseHead
    /// The body, to be read once.
    public var body: NetworkResponseBody
    /// The request as the caller made it (for a transport's answer: the request it sent).
    public var originalRequest: NetworkRequest
    /// How the call went up to the head (a session's `requestStream` fills it; the body's own
    /// phases are not in it, as the body has not been read). Empty for a transport's answer.
    public var metrics = NetworkMetrics()

    /// Creates a response from its parts.
    public init(response: NetworkResponseHead, body: NetworkResponseBody, originalRequest: NetworkRequest) {
        self.response = response
        self.body = body
        self.originalRequest = originalRequest
    }

    /// The status code.
    public var statusCode: HTTPCode { response.statusCode }
}

/// Where ``Transport/send(_:to:progress:redirectPolicy:timeout:)`` puts a response body.
public enum TransportBodyDestination: Sendable, Hashable {
    /// In memory, as ``TransportResponse/body``.
    case memory
    /// Written to this file (created or replaced), never held in memory as a whole.
    case file(URL)
}

/// A response read to its end: the head, and the body in memory or in a file.
public struct TransportResponse: Sendable {
    /// Status, headers and final URL.
    public var head: NetworkResponseHead
    /// The body when the destination was ``TransportBodyDestination/memory``; empty otherwise.
    public var body: Data
    /// The file holding the body when the destination was ``TransportBodyDestination/file(_:)``.
    public var fileURL: URL?
    /// How many body bytes arrived (after any content decoding the transport does).
    public var bodyByteCount: Int64

    /// Creates a response whose body is in memory.
    public init(head: NetworkResponseHead, body: Data) {
        self.head = head
        self.body = body
        self.fileURL = nil
        self.bodyByteCount = Int64(body.count)
    }

    /// Creates a response whose body was written to `fileURL`.
    public init(head: NetworkResponseHead, fileURL: URL, bodyByteCount: Int64) {
        self.head = head
        self.body = Data()
        self.fileURL = fileURL
        self.bodyByteCount = bodyByteCount
    }
}
