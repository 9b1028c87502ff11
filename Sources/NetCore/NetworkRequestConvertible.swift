#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Anything that can become a ``NetworkRequest``: the role `URLRequestConvertible` plays in
/// ALTENNetwork. `NetworkRequest`, `URL` and `String` conform; conform your own endpoint types to
/// pass them straight to a session.
public protocol NetworkRequestConvertible: Sendable {
    /// The request to send; throws a ``NetworkError`` if it cannot be built.
    func asNetworkRequest() throws -> NetworkRequest
}

extension NetworkRequest: NetworkRequestConvertible {
    /// The request itself.
    public func asNetworkRequest() throws -> NetworkRequest { self }
}

extension URL: NetworkRequestConvertible {
    /// A GET request for this URL.
    public func asNetworkRequest() throws -> NetworkRequest { try NetworkRequest(url: self) }
}

extension String: NetworkRequestConvertible {
    /// A GET request for this URL string.
    public func asNetworkRequest() throws -> NetworkRequest { try NetworkRequest(url: self) }
}
