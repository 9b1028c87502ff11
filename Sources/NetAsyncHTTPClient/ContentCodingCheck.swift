#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import Foundation
import NetCore
import NetTransport

/// The body codings `AsyncHTTPClientTransport` hands over decoded: SwiftNIO's decompressor decodes
/// a body whose first coding is gzip or deflate, and passes any other through as it came.
enum ContentCodingCheck {
    /// Refuses a body in a coding the transport did not decode, when it chose the request's
    /// `Accept-Encoding` itself: a server that answers with another (`br`, `zstd`, `x-gzip`, two
    /// codings stacked) would otherwise hand over encoded bytes as the body. A request with an
    /// `Accept-Encoding` of its own asked for what it gets, and gets the bytes as sent, as `curl`
    /// without `--compressed` does. A response with no body, or a redirect with a `Location`
    /// (whose body is dropped when it is followed), is not refused.
    static func refuseUndecoded(_ response: NetworkStreamResponse, of request: NetworkRequest) throws {
        let head = response.response
        guard head.headers["Content-Encoding"] != nil, request.headers["Accept-Encoding"] == nil,
              !head.hasNoBody(answering: request.httpMethod), head.expectedContentLength != 0,
              !((300..<400).contains(head.statusCode.rawValue) && head.headers["Location"] != nil) else { return }
        let codings = head.headers.values(for: "Content-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        // Handed over decoded: gzip or deflate first, and nothing but identity after it.
        let decoded = ["gzip", "deflate"].contains(codings.first ?? "") && codings.dropFirst().allSatisfy { $0 == "identity" }
        guard !decoded, !codings.allSatisfy({ $0 == "identity" }) else { return }
        throw NetworkError.transport(.connectionLost(
            "\(request.description): the body is in Content-Encoding \(codings.joined(separator: ", ")), which AsyncHTTPClientTransport does not decode (it asked for gzip or deflate)"))
    }
}
#endif
