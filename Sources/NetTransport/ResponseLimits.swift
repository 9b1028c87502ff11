import NetCore

/// How large a response body may grow before it stops being read: the defence against
/// decompression bombs and bodies too large to hold. The transport enforces the decompression
/// limit (it decodes); the pipeline enforces the in-memory limit on bodies read into memory.
/// Exceeding one ends the exchange with ``NetworkError/TransportFailure/responseBodyLimitExceeded(_:)``
/// naming the limit, and a download leaves nothing at its destination.
///
/// ```swift
/// // A legitimately huge compressed download: lift the limits for this transport.
/// let transport = URLSessionTransport(configuration: .init(responseLimits: .unlimited))
/// ```
public struct ResponseLimits: Sendable, Hashable {
    /// The most bytes (after decompression) of a body held in memory; `nil` for no limit.
    /// 256 MiB by default.
    public var maximumInMemoryBodySize: Int64?
    /// How far a compressed body (one with a `Content-Encoding`) may inflate, whatever its
    /// destination. `.ratio(100)` by default.
    public var decompression: DecompressionLimit

    /// Creates limits; every parameter has the default described on its property.
    public init(maximumInMemoryBodySize: Int64? = 256 << 20, decompression: DecompressionLimit = .ratio(100)) {
        self.maximumInMemoryBodySize = maximumInMemoryBodySize.map { max(0, $0) }
        self.decompression = decompression
    }

    /// No limit at all: only for servers you trust with your memory and disk.
    public static let unlimited = ResponseLimits(maximumInMemoryBodySize: nil, decompression: .none)

    /// How far a compressed body may inflate.
    public enum DecompressionLimit: Sendable, Hashable {
        /// At most this many decoded bytes per compressed byte received (AsyncHTTPClient's model).
        /// A transport that sees only decoded bytes (URLSession on Linux) checks the ratio against
        /// the declared `Content-Length`, which a server can overstate, so it also holds every
        /// compressed body to ``ResponseLimits/maximumInMemoryBodySize``, wherever it goes. A ratio
        /// below 1 counts as 1; one above 2²⁰ counts as 2²⁰ on AsyncHTTPClientTransport (SwiftNIO
        /// multiplies it by the bytes received, unchecked), and a limit past what an `Int64` holds
        /// as none on URLSessionTransport.
        case ratio(Int)
        /// At most this many decoded bytes in all.
        case size(Int64)
        /// No decompression limit.
        case none
    }

    /// The decompression limit that `decoded` bytes of a compressed body break, if any, for a
    /// transport that sees only decoded bytes (a transport that counts compressed bytes, like
    /// AsyncHTTPClient's, enforces the limit itself), given the body's declared `Content-Length`
    /// (`nil` when there is none).
    public func decompressionLimitExceeded(decoded: Int64, declaredCompressedLength compressed: Int64?) -> NetworkError.ResponseBodyLimit? {
        switch decompression {
        case .none:
            return nil
        case .size(let bytes):
            return decoded > bytes ? .decompressedSize(bytes: bytes) : nil
        case .ratio(let ratio):
            if let compressed {
                let allowed = compressed.multipliedReportingOverflow(by: Int64(max(1, ratio)))
                if !allowed.overflow && decoded > allowed.partialValue { return .decompressionRatio(ratio) }
            }
            // The declared length may be missing or a lie: the in-memory limit caps it anyway.
            if let maximumInMemoryBodySize, decoded > maximumInMemoryBodySize {
                return .decompressedSize(bytes: maximumInMemoryBodySize)
            }
            return nil
        }
    }
}
