/// Every error Net throws, grouped as in ALTENNetwork: building the request, handling a data,
/// download or upload response, and (new in Net) the transport failing to exchange the request.
///
/// All payloads are `Sendable` values, so errors cross tasks and actors freely, and every case
/// has a readable `description`.
public enum NetworkError: Error, Sendable {
    /// The request could not be built or is not valid to send.
    case request(RequestFailure)
    /// A data response did not pass validation or decoding.
    case responseData(ResponseFailure<NetworkDataResponse>)
    /// A download response did not pass validation or decoding.
    case responseDownload(ResponseFailure<NetworkDownloadResponse>)
    /// An upload response did not pass validation or decoding.
    case responseUpload(ResponseFailure<NetworkUploadResponse>)
    /// The request could not be exchanged with the server.
    case transport(TransportFailure)
    /// A streamed body could not be read as the format asked for (Server-Sent Events, JSON Lines),
    /// or an event source stopped; the failure says why.
    case stream(StreamFailure)
}

extension NetworkError {
    /// Why a request could not be built or sent.
    public enum RequestFailure: Sendable, Hashable {
        /// The URL string (shown as given) cannot be sent, for the stated reason.
        case invalidURL(String, reason: InvalidURLReason)
        /// The method is not a valid HTTP token (empty, or holding a space, CR, LF, …).
        case invalidMethod(String)
        /// A header name or value cannot be put on the wire.
        case invalidHeader(name: String, reason: InvalidHeaderReason)
        /// An `Encodable` body could not be encoded; names the type and the encoder's message.
        case encodeError(type: String, description: String)
        /// A timeout was zero or negative.
        case invalidTimeout(Duration)
        /// A body file is missing, unreadable or not a regular file.
        case unreadableBodyFile(path: String, reason: String)
        /// A body produced a different number of bytes than it declared.
        case bodyLengthMismatch(expected: Int64, actual: Int64)
        /// The request line and headers are larger than the transport can send (`URLSessionTransport`:
        /// libcurl's 1 MiB, less room for its own headers).
        case requestHeadTooLarge(bytes: Int, limit: Int)
        /// A resumable download was asked for with a method other than GET: only a GET's
        /// representation can be fetched again from a byte offset.
        case unresumableMethod(String)
    }

    /// Why a URL string was refused.
    public enum InvalidURLReason: Sendable, Hashable {
        /// The string is empty.
        case empty
        /// The string holds a space, tab, newline or other control character; encode query values
        /// with ``NetworkQuery`` instead of writing them into the URL.
        case containsWhitespaceOrControlCharacter
        /// The URL is relative: it has no `http://` or `https://`.
        case missingScheme
        /// The scheme is not `http` or `https`.
        case unsupportedScheme(String)
        /// The URL has no host, as in `http:///path`.
        case missingHost
        /// The host holds non-ASCII text; give internationalised names in their `xn--` form.
        case nonASCIIHost
        /// The port is not a number from 1 to 65535 (shown as written).
        case invalidPort(String)
        /// The string is not a URL at all.
        case malformed
    }

    /// Why a header field was refused.
    public enum InvalidHeaderReason: Sendable, Hashable {
        /// The name is empty.
        case emptyName
        /// The name holds a character that is not allowed in an HTTP token.
        case invalidNameCharacter(Unicode.Scalar)
        /// The value holds CR, LF, NUL or another control character.
        case forbiddenValueCharacter(Unicode.Scalar)
        /// The header is written by Net itself (a multipart part's `Content-Disposition`) and
        /// cannot be given again.
        case reservedName
    }

    /// What went wrong with a response that arrived.
    public enum ResponseFailure<Response: NetworkResponse>: Sendable {
        /// The status code is not in the accepted set.
        case invalidStatusCode(Response, HTTPCode)
        /// The `Content-Type` is not one of those accepted (`actual` is `nil` when it is missing).
        case invalidContentType(Response, expected: [String], actual: String?)
        /// The body could not be decoded.
        case decodeError(Response, NetworkDecodingFailure)
        /// The body could not be read (for downloads: the file is gone or unreadable).
        case unreadableBody(Response, reason: String)

        /// The response the failure is about.
        public var response: Response {
            switch self {
            case .invalidStatusCode(let response, _), .invalidContentType(let response, _, _),
                .decodeError(let response, _), .unreadableBody(let response, _):
                response
            }
        }
    }

    /// Why the exchange with the server failed.
    public enum TransportFailure: Sendable, Hashable {
        /// No connection could be made (refused, host not found, no route); the message says which.
        case cannotConnect(String)
        /// The request did not finish within its timeout.
        case timedOut(String)
        /// The connection closed or reset before the response was complete, or the body was
        /// shorter than its `Content-Length`.
        case connectionLost(String)
        /// The request was cancelled.
        case cancelled
        /// The TLS handshake or certificate check failed.
        case tls(String)
        /// The server's certificate passed every check but its public key is none of the host's
        /// pins (`TLSSettings.pinnedPublicKeys`); names the host. Nothing was sent to it.
        case publicKeyPinMismatch(host: String)
        /// The transport's TLS settings cannot be used: a certificate or key that does not parse,
        /// a wrong passphrase, a malformed pin. Says which.
        case invalidTLSSettings(String)
        /// Going through the proxy failed, or the proxy settings cannot be used.
        case proxy(ProxyFailure)
        /// The transport cannot honour a setting it was given (for example TLS or proxy settings on
        /// a transport whose platform library has no such option). Names the setting and what can.
        case unsupportedSetting(String)
        /// The server redirected more times than the transport's limit allows; names the last URL.
        case tooManyRedirects(limit: Int, lastURL: String)
        /// The response body could not be written to its destination file.
        case cannotWriteBody(path: String, reason: String)
        /// The request allowed only the cache (``NetworkCachePolicy/returnCacheDataDontLoad``) and
        /// the cache holds no response for it; names the URL.
        case notInCache(String)
        /// The response body grew past one of the transport's limits (a decompression bomb, or a
        /// body too large to hold in memory); names the limit. Nothing is left at a download's
        /// destination.
        case responseBodyLimitExceeded(ResponseBodyLimit)
        /// Any other transport failure, described.
        case other(String)
    }

    /// Why going through a proxy failed. Proxy URLs in these messages have their password redacted.
    public enum ProxyFailure: Sendable, Hashable {
        /// A proxy URL (a setting or an environment variable) is not one Net can use; says why.
        case invalidProxyURL(String, reason: String)
        /// The proxy refused the credentials or asked for some (HTTP 407, or SOCKS5's
        /// username/password step failed); names the proxy.
        case authenticationFailed(proxy: String)
        /// The proxy could not be reached, or would not connect to the origin; names the proxy
        /// and says what happened.
        case cannotConnect(proxy: String, reason: String)
    }

    /// A limit on a response body (see `ResponseLimits` in NetTransport).
    public enum ResponseBodyLimit: Sendable, Hashable {
        /// More than this many bytes would have been held in memory.
        case inMemorySize(bytes: Int64)
        /// The body inflated to more than this many times its compressed size.
        case decompressionRatio(Int)
        /// The body decompressed to more than this many bytes.
        case decompressedSize(bytes: Int64)
        /// More than this many bytes had arrived that the reader had not taken yet, on a transport
        /// that cannot slow the server down (URLSessionTransport spools them to disk).
        case unreadBacklog(bytes: Int64)
    }

    /// Why a streamed body could not be read as events or lines, or an event source stopped.
    public enum StreamFailure: Sendable, Hashable {
        /// A line grew past this many bytes without a line break: the reader stopped rather than
        /// hold an endless line in memory.
        case lineTooLong(limit: Int)
        /// An event's data grew past this many bytes before the blank line that ends it.
        case eventTooLarge(limit: Int)
        /// A JSON Lines line did not decode: its 1-based number, its first characters, and the
        /// decoder's reason.
        case undecodableLine(number: Int, excerpt: String, reason: String)
        /// An event source's response was not an event stream: a status other than 200, or a
        /// content type other than `text/event-stream` (`nil` when there was none). Not retried.
        case notAnEventStream(status: Int, contentType: String?)
        /// The server answered an event source with 204 No Content: it asks the client to stop
        /// reconnecting.
        case stoppedByServer
        /// An event source gave up after this many connection attempts in a row that received
        /// nothing (refused, failed, or closed before a byte); the last one's failure is named.
        case reconnectionsExhausted(attempts: Int, lastFailure: String)
    }
}
