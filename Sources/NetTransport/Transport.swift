import Foundation
import NetCore

/// Moves one HTTP exchange over the wire: the pluggable bottom of a ``NetworkSession``.
///
/// A transport sends a validated ``NetworkRequest`` (with its in-memory, file or streamed body)
/// and returns the response head with the body in memory or in a file. It follows redirects the
/// way its own configuration says, enforces ``NetworkRequest/timeout`` itself and reports upload
/// and download progress. Everything above it (interceptors, retry, authentication) lives in the
/// session, so a transport stays small and easy to swap: ``URLSessionTransport`` for real
/// traffic, ``StubTransport`` for tests of the code above it.
///
/// Contract every transport keeps:
/// - failures are thrown as ``NetworkError`` (`.request` for a request that cannot be sent,
///   `.transport` for a failed exchange); cancelling the calling task throws `CancellationError`
///   promptly, without waiting for the server;
/// - with ``TransportBodyDestination/file(_:)`` the body is complete at that URL when `send`
///   returns, and nothing this call wrote is left there when it throws;
/// - a body shorter than its `Content-Length` is a ``NetworkError/TransportFailure/connectionLost(_:)``.
public protocol Transport: Sendable {
    /// Sends `request` and returns the final response (after any redirects the transport follows).
    ///
    /// - Parameters:
    ///   - request: the request to send; it is validated before anything goes on the wire.
    ///   - destination: where the response body goes.
    ///   - progress: called with upload and download progress, from any thread.
    func send(
        _ request: NetworkRequest,
        to destination: TransportBodyDestination,
        progress: TransportProgressHandler?
    ) async throws -> TransportResponse
}

extension Transport {
    /// Sends `request` and keeps the response body in memory, without progress reports.
    public func send(_ request: NetworkRequest) async throws -> TransportResponse {
        try await send(request, to: .memory, progress: nil)
    }
}

/// Where a transport puts a response body.
public enum TransportBodyDestination: Sendable, Hashable {
    /// In memory, as ``TransportResponse/body``.
    case memory
    /// Written to this file (created or replaced), never held in memory as a whole.
    case file(URL)

    /// Whether the body is kept in memory.
    public var isMemory: Bool { self == .memory }
}

/// What a transport received: the response head, and the body in memory or in a file.
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
