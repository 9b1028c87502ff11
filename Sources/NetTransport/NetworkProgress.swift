/// How far the upload or download of one request has got.
public struct NetworkProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which way the bytes are moving.
    public enum Direction: Sendable, Hashable {
        /// The request body going to the server.
        case upload
        /// The response body coming from the server.
        case download
    }

    /// Which way the bytes are moving.
    public var direction: Direction
    /// Bytes moved so far.
    public var completedBytes: Int64
    /// Bytes expected in all, when known (a `Content-Length`, a file's size).
    public var expectedBytes: Int64?

    /// Creates a progress report.
    public init(direction: Direction, completedBytes: Int64, expectedBytes: Int64?) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// `completedBytes / expectedBytes` in `0...1`, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// For example `download 512/1024`.
    public var description: String {
        "\(direction) \(completedBytes)/\(expectedBytes.map(String.init) ?? "?")"
    }
}

/// Receives progress reports from a transport; called from any thread, and it must return quickly
/// and never block: URLSessionTransport calls it on FoundationNetworking's one work queue, which
/// every transfer of its session shares, so a handler that waits stalls them all. It may cancel
/// the call. A download's last report may come just after its call failed or was cancelled (the
/// chunk it reports was written as the call ended).
public typealias TransportProgressHandler = @Sendable (NetworkProgress) -> Void
