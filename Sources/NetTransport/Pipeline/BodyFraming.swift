import Foundation
import NetCore

/// The one check that a body without content coding is as long as its `Content-Length`: a
/// shorter one ends with ``NetworkError/TransportFailure/connectionLost(_:)`` instead of passing
/// for complete (a transport may see a closed connection as a normal end), and that the length
/// is not contradicted by `Transfer-Encoding`.
///
/// The check rides in the body itself (its iterator counts the bytes), not in a sequence wrapped
/// around it: a wrapper cost two allocations and one more async call per chunk on every call.
struct BodyFraming: Sendable {
    /// The `Content-Length` the body must reach.
    let expected: Int64
    /// The response's URL, for the error's text.
    let url: URL

    /// `body`, made to end with an error if it is shorter than its head's `Content-Length`.
    ///
    /// Throws for a head with both `Content-Length` and `Transfer-Encoding`: RFC 9112 §6.3 says
    /// such a message "ought to be handled as an error" (it is how responses are split and
    /// smuggled). AsyncHTTPClient's parser refuses it; libcurl reads the chunks, and the length
    /// check would then judge them by the other header.
    static func checked(_ body: NetworkResponseBody, head: NetworkResponseHead, method: NetworkHttpMethod) throws -> NetworkResponseBody {
        guard !head.isFramedWithoutBody(answering: method), let expected = head.expectedContentLength else { return body }
        guard head.headers["Transfer-Encoding"] == nil else {
            throw NetworkError.transport(.connectionLost(
                "the response from \(NetworkRedaction.redactedURL(head.url)) has both Content-Length and Transfer-Encoding"))
        }
        guard !body.isWithheld else { return body }
        // A body already whole and long enough needs no check (a stub's, a cache hit's, a small
        // body a transport received whole).
        if case .whole(let data) = body.storage, Int64(data.count) >= expected { return body }
        guard head.headers["Content-Encoding"] == nil else { return body }
        var framed = body
        framed.framing = BodyFraming(expected: expected, url: head.url)
        return framed
    }

    /// Throws when the body ended after `received` bytes, short of ``expected``.
    func checkEnd(after received: Int64) throws {
        guard received >= expected else {
            throw NetworkError.transport(.connectionLost("the body ended after \(received) of \(expected) bytes from \(NetworkRedaction.redactedURL(url))"))
        }
    }
}
