import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetCore

/// Turns URLSession's errors into ``NetworkError`` so callers never see `URLError` codes.
enum URLErrorMapping {
    static func networkError(for error: any Error, request: NetworkRequest) -> any Error {
        if error is NetworkError || error is CancellationError { return error }
        let nsError = error as NSError
        let target = request.description
        guard nsError.domain == NSURLErrorDomain else {
            return NetworkError.transport(.other("\(target): \(nsError.localizedDescription)"))
        }
        let message = "\(target): \(nsError.localizedDescription) (URLError \(nsError.code))"
        switch URLError.Code(rawValue: nsError.code) {
        case .cancelled:
            return NetworkError.transport(.cancelled)
        case .timedOut:
            return NetworkError.transport(.timedOut(message))
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
             .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            return NetworkError.transport(.cannotConnect(message))
        case .networkConnectionLost, .badServerResponse, .zeroByteResource, .cannotParseResponse,
             .cannotDecodeRawData, .cannotDecodeContentData, .resourceUnavailable:
            return NetworkError.transport(.connectionLost(message))
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            return NetworkError.transport(.tls(message))
        case .badURL, .unsupportedURL:
            // On Linux (Swift 6.3.1) URLSession refuses IPv6 literal hosts with badURL; it also
            // says badURL for URLs libcurl will not take (`http://127.1/`) and for replies that are
            // not HTTP/1.x, so the IPv6 hint is given only where it applies.
            if request.url.host?.contains(":") == true {
                return NetworkError.transport(.other("\(message); URLSession on Linux cannot reach IPv6 literal hosts such as [::1]: use a host name, or AsyncHTTPClientTransport"))
            }
            return NetworkError.transport(.other("\(message): URLSession (libcurl) refused the URL or could not read the reply as HTTP/1.x"))
        default:
            // libcurl's "transfer closed with N bytes remaining" arrives as an unknown (-1) code.
            if nsError.localizedDescription.contains("transfer closed") {
                return NetworkError.transport(.connectionLost(message))
            }
            // libcurl's CURLE_BAD_CONTENT_ENCODING: a body it could not decode, as a lost
            // connection like every other body that cannot be read to its end (and as
            // AsyncHTTPClientTransport says it).
            if ["Unrecognized or bad HTTP Content or Transfer-Encoding", "Error while processing content unencoding"]
                .contains(where: nsError.localizedDescription.contains) {
                return NetworkError.transport(.connectionLost(message))
            }
            // FoundationNetworking fails the transfer when a header value is not UTF-8.
            if nsError.localizedDescription.contains("Failed writing header") {
                return NetworkError.transport(.connectionLost("\(message): a response header value is not UTF-8, which URLSession on Linux cannot read (AsyncHTTPClientTransport can)"))
            }
            // libcurl's certificate and handshake failures also arrive as -1 ("SSL certificate
            // problem: self-signed certificate", "SSL connect error").
            if ["SSL", "certificate", "TLS"].contains(where: nsError.localizedDescription.contains) {
                return NetworkError.transport(.tls(message))
            }
            return NetworkError.transport(.other(message))
        }
    }
}
