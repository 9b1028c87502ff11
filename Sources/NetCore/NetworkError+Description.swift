extension NetworkError: CustomStringConvertible {
    /// A one-line explanation that names the offending input.
    public var description: String {
        switch self {
        case .request(let failure): "Invalid request: \(failure)"
        case .responseData(let failure): "Data response: \(failure)"
        case .responseDownload(let failure): "Download response: \(failure)"
        case .responseUpload(let failure): "Upload response: \(failure)"
        case .transport(let failure): "Transport failure: \(failure)"
        case .stream(let failure): "Stream failure: \(failure)"
        }
    }
}

extension NetworkError.RequestFailure: CustomStringConvertible {
    /// A one-line explanation that names the offending input.
    public var description: String {
        switch self {
        case .invalidURL(let string, let reason): "invalid URL \(quoted(NetworkRedaction.redactedURL(string))): \(reason)"
        case .invalidMethod(let token): "invalid HTTP method \(quoted(token)): a method is a non-empty token without spaces or control characters"
        case .invalidHeader(let name, let reason): "invalid header \(quoted(name)): \(reason)"
        case .encodeError(let type, let description): "could not encode \(type) as the body: \(description)"
        case .invalidTimeout(let duration): "invalid timeout \(duration): it must be positive"
        case .unreadableBodyFile(let path, let reason): "cannot read body file \(quoted(path)): \(reason)"
        case .bodyLengthMismatch(let expected, let actual): "the body declared \(expected) bytes but produced \(actual)"
        case .requestHeadTooLarge(let bytes, let limit): "the URL and headers are \(bytes) bytes, more than this transport can send (\(limit)); shorten the URL or move data into the body"
        case .unresumableMethod(let method): "a resumable download must be a GET, not \(quoted(method))"
        }
    }
}

extension NetworkError.InvalidURLReason: CustomStringConvertible {
    /// Says what is wrong and how to fix it.
    public var description: String {
        switch self {
        case .empty: "the URL is empty"
        case .containsWhitespaceOrControlCharacter: "it contains whitespace or a control character (pass query values through NetworkQuery, which encodes them)"
        case .missingScheme: "it is relative; write it in full, starting with http:// or https://"
        case .unsupportedScheme(let scheme): "the scheme \(quoted(scheme)) is not supported; use http or https"
        case .missingHost: "it has no host"
        case .nonASCIIHost: "the host is not ASCII; give internationalised domain names in their xn-- form"
        case .invalidPort(let port): "the port \(quoted(port)) is not a number from 1 to 65535"
        case .malformed: "it is not a valid URL"
        }
    }
}

extension NetworkError.InvalidHeaderReason: CustomStringConvertible {
    /// Says which character was refused, as a code point so invisible characters show.
    public var description: String {
        switch self {
        case .emptyName: "the name is empty"
        case .invalidNameCharacter(let scalar): "the name contains \(codePoint(scalar)), which is not allowed in a header name"
        case .forbiddenValueCharacter(let scalar): "the value contains \(codePoint(scalar)); CR, LF, NUL and other control characters could inject headers"
        case .reservedName: "Net writes this header itself; set it through the part's own properties"
        }
    }
}

extension NetworkError.ResponseFailure: CustomStringConvertible {
    /// Names the status, the URL and what failed.
    public var description: String {
        // A body excerpt is the server's text, which may echo the request's credentials.
        NetworkRedaction.scrubbing(explanation, secrets: NetworkRedaction.secretValues(of: response.originalRequest))
    }

    /// What failed, with the URL redacted; a decoding failure's body excerpt as the server sent it.
    private var explanation: String {
        let head = response.response
        let url = NetworkRedaction.redactedURL(head.url, secretQueryKeys: response.originalRequest.secretQueryKeys)
        switch self {
        case .invalidStatusCode(_, let code): return "unacceptable status \(code) from \(url)"
        case .invalidContentType(_, let expected, let actual):
            return "unacceptable Content-Type \(actual.map(quoted) ?? "(none)") from \(url); expected one of \(expected.joined(separator: ", "))"
        case .decodeError(_, let failure): return "\(failure) (status \(head.statusCode), \(url))"
        case .unreadableBody(_, let reason): return "cannot read the body of the \(head.statusCode) response from \(url): \(reason)"
        }
    }
}

extension NetworkError.TransportFailure: CustomStringConvertible {
    /// Names the failure and the transport's own message.
    public var description: String {
        switch self {
        case .cannotConnect(let message): "cannot connect: \(message)"
        case .timedOut(let message): "timed out: \(message)"
        case .connectionLost(let message): "connection lost: \(message)"
        case .cancelled: "cancelled"
        case .tls(let message): "TLS failure: \(message)"
        case .publicKeyPinMismatch(let host): "TLS failure: the public key of \(host)'s certificate matches none of its pins"
        case .invalidTLSSettings(let message): "invalid TLS settings: \(message)"
        case .proxy(let failure): "\(failure)"
        case .unsupportedSetting(let message): "unsupported setting: \(message)"
        case .tooManyRedirects(let limit, let lastURL): "more than \(limit) redirects; the last pointed to \(lastURL)"
        case .cannotWriteBody(let path, let reason): "cannot write the response body to \(path): \(reason)"
        case .notInCache(let url): "no cached response for \(url), and the request's cache policy forbids the network"
        case .responseBodyLimitExceeded(let limit): "the response body \(limit)"
        case .other(let message): message
        }
    }
}

extension NetworkError.ProxyFailure: CustomStringConvertible {
    /// Names the proxy (password redacted) and what went wrong.
    public var description: String {
        switch self {
        case .invalidProxyURL(let url, let reason): "invalid proxy \(url): \(reason)"
        case .authenticationFailed(let proxy):
            proxy.hasPrefix("socks")
                ? "the proxy \(proxy) refused the credentials, or wants some (SOCKS5 authentication)"
                : "the proxy \(proxy) refused the credentials, or wants some (407 Proxy Authentication Required)"
        case .cannotConnect(let proxy, let reason): "cannot connect through the proxy \(proxy): \(reason)"
        }
    }
}

extension NetworkError.ResponseBodyLimit: CustomStringConvertible {
    /// Says which limit was passed and where it is set.
    public var description: String {
        switch self {
        case .inMemorySize(let bytes):
            "is larger than the in-memory limit of \(bytes) bytes (ResponseLimits.maximumInMemoryBodySize; download it to a file, or raise the limit)"
        case .decompressionRatio(let ratio):
            "inflated to more than \(ratio) times its compressed size, which looks like a decompression bomb (ResponseLimits.decompression: .ratio(\(ratio)); raise or lift it for a server you trust)"
        case .decompressedSize(let bytes):
            "decompressed to more than \(bytes) bytes (ResponseLimits.decompression, or for URLSessionTransport, which cannot count compressed bytes, maximumInMemoryBodySize; raise or lift it for a server you trust)"
        case .unreadBacklog(let bytes):
            "arrived more than \(bytes) bytes ahead of the reader, which this transport cannot slow down (URLSessionTransport.Configuration.maximumSpooledBytes; read faster, raise the limit, or use AsyncHTTPClientTransport, which holds the server back)"
        }
    }
}

private func quoted(_ string: String) -> String {
    "\"" + string.unicodeScalars.map { isVisible($0) ? String($0) : codePoint($0) }.joined() + "\""
}

/// Control characters and unusual spaces print as code points so an error shows what was refused.
private func isVisible(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || !(scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
        || scalar.properties.generalCategory == .format)
}

private func codePoint(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}

extension NetworkError.ResponseFailure: CustomReflectable {
    /// The redacted description and the (redacted) response, so `dump(error)` shows no body text
    /// echoing a credential.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description, "response": response], displayStyle: .enum)
    }
}

extension NetworkError.StreamFailure: CustomStringConvertible {
    /// Says what the stream did and which limit or rule it broke.
    public var description: String {
        switch self {
        case .lineTooLong(let limit): "a line ran past \(limit) bytes without a line break; raise maximumLineLength if the server really sends such lines"
        case .eventTooLarge(let limit): "an event's data ran past \(limit) bytes before the blank line that ends it; raise maximumEventLength if the server really sends such events"
        case .undecodableLine(let number, let excerpt, let reason): "line \(number) is not the expected JSON (\(reason)): \(quoted(excerpt))"
        case .notAnEventStream(let status, let contentType): "the server answered \(status) with content type \(contentType.map(quoted) ?? "(none)"), not 200 with text/event-stream; not reconnecting"
        case .stoppedByServer: "the server answered 204 No Content: it asks the client to stop reconnecting"
        case .reconnectionsExhausted(let attempts, let lastFailure): "gave up after \(attempts) connection attempts in a row that received nothing; the last: \(lastFailure)"
        }
    }
}
