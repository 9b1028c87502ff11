#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import Foundation
import NetCore
import NetTransport
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSOCKS

/// An error the request body's own stream threw (the caller's, or an OpenAPI runtime's), marked
/// so that it reaches the caller as thrown, as on URLSessionTransport, rather than as text
/// matched against NIO's error names.
struct RequestBodySourceFailure: Error {
    let error: any Error
}

/// AsyncHTTPClient's and SwiftNIO's errors as Net's typed ones, matching URLSessionTransport's.
enum ErrorMapping {
    /// The channel errors of a pooled connection the server had already closed: the request
    /// could not be written on it.
    private static let staleConnectionErrors: [ChannelError] = [.ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed]

    /// Whether `error` (as AsyncHTTPClient threw it) says the request never left.
    @inline(never)  // its error copies stay out of the async frame that asks
    static func isStaleConnection(_ error: any Error) -> Bool {
        (error as? ChannelError).map(staleConnectionErrors.contains) ?? false
    }

    static func networkError(for error: any Error, request: NetworkRequest, limits: ResponseLimits, proxy: NetworkProxy? = nil) -> any Error {
        if error is NetworkError || error is CancellationError { return error }
        if let source = error as? RequestBodySourceFailure { return source.error }
        if let proxy, let failure = proxyFailure(error, request: request, proxy: proxy) {
            return NetworkError.transport(.proxy(failure))
        }
        let target = request.description
        if let decompression = error as? NIOHTTPDecompression.DecompressionError, decompression == .limit {
            switch limits.decompression {
            case .ratio(let ratio): return NetworkError.transport(.responseBodyLimitExceeded(.decompressionRatio(ratio)))
            case .size(let bytes): return NetworkError.transport(.responseBodyLimitExceeded(.decompressedSize(bytes: bytes)))
            case .none: break
            }
        }
        if let extra = error as? NIOHTTPDecompression.ExtraDecompressionError, extra == .truncatedData {
            // The body ended before its gzip or deflate stream did: cut short, as a body shorter
            // than its Content-Length is.
            return NetworkError.transport(.connectionLost("\(target): the compressed body ended before its end"))
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled: return CancellationError()
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return NetworkError.transport(.timedOut("no complete response within \(request.timeout.map { "\($0)" } ?? "the default timeout") (\(target))"))
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return NetworkError.transport(.cannotConnect("\(target): connecting timed out"))
            case .remoteConnectionClosed:
                return NetworkError.transport(.connectionLost("\(target): the server closed the connection"))
            default:
                break
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL:
                return NetworkError.transport(.cannotConnect("\(target): \(io)"))
            case ECONNRESET, EPIPE:
                return NetworkError.transport(.connectionLost("\(target): \(io)"))
            default:
                break
            }
        }
        if isStaleConnection(error) {
            return NetworkError.transport(.connectionLost("\(target): the connection was closed before the request was sent (\(error))"))
        }
        if error is HTTPParserError {
            return NetworkError.transport(.connectionLost("\(target): \(error)"))
        }
        let description = String(describing: error)
        if description.contains("NIOConnectionError") || description.contains("connectionRefused") || description.contains("Connection refused") {
            return NetworkError.transport(.cannotConnect("\(target): \(description)"))
        }
        if description.contains("SSL") || description.contains("TLS") || description.contains("certificate") {
            return NetworkError.transport(.tls("\(target): \(description)"))
        }
        return NetworkError.transport(.other("\(target): \(description)"))
    }

    /// The failures that are the proxy's: reaching it, its credentials, its refusal to connect on.
    /// A failure past the tunnel (the origin's TLS, a cut body) is the origin's, mapped as without
    /// a proxy.
    private static func proxyFailure(_ error: any Error, request: NetworkRequest, proxy: NetworkProxy) -> NetworkError.ProxyFailure? {
        let name = proxy.description
        let origin = "\(request.url.host(percentEncoded: false) ?? "?"):\(request.url.port ?? (request.url.scheme == "https" ? 443 : 80))"
        if let client = error as? HTTPClientError {
            switch client {
            case .proxyAuthenticationRequired: return .authenticationFailed(proxy: name)
            case .invalidProxyResponse: return .cannotConnect(proxy: name, reason: "it refused to open a tunnel to \(origin) (its answer to CONNECT was neither 2xx nor 407)")
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout: return .cannotConnect(proxy: name, reason: "its handshake timed out")
            case .connectTimeout: return .cannotConnect(proxy: name, reason: "connecting to it timed out")
            default: break
            }
        }
        if let io = error as? IOError, [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(io.errnoCode) {
            return .cannotConnect(proxy: name, reason: "\(io)")
        }
        // The proxy accepts none of the methods offered: AsyncHTTPClient offers only "no
        // authentication" (credentials go through the transport's relay), so it wants some.
        if error is SOCKSError.InvalidAuthenticationSelection || error is SOCKSError.NoValidAuthenticationMethod {
            return .authenticationFailed(proxy: name)
        }
        let description = String(describing: error)
        if description.contains("SOCKS") {
            return .cannotConnect(proxy: name, reason: "SOCKS5: \(description) (to \(origin))")
        }
        if description.contains("NIOConnectionError") || description.contains("connectionRefused") || description.contains("Connection refused") {
            return .cannotConnect(proxy: name, reason: description)
        }
        return nil
    }
}
#endif
