#if OpenAPI  // the package trait: without it this file compiles to nothing
import Foundation
import HTTPTypes
import NetCore
import NetTransport
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests through a
/// `NetworkSession`: a `NetworkClient` with its interceptors (retry, authentication, cache,
/// logging, metrics, the concurrency limit) on either of Net's transports, or your own session.
///
/// ```swift
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: NetOpenAPITransport(session: NetworkClient(interceptors: [RetryPolicy()])))
/// ```
///
/// Nothing is buffered whole: the request body is streamed as the generated code produces it
/// (`Content-Length` when its length is known, chunked otherwise), and the response body is
/// handed back as it arrives, read from the network only as fast as the generated code takes it
/// (``NetworkResponseBody``'s backpressure). Failures are Net's typed ``NetworkError``, which
/// the runtime wraps in its `ClientError` as `underlyingError`.
///
/// A request body the generated code can produce only once (`HTTPBody`'s `.single` iteration,
/// such as a stream you pass in) cannot be sent twice: a retry or a 307/308 redirect of such a
/// request fails with the runtime's error for a second iteration instead of sending an empty body.
public struct NetOpenAPITransport: ClientTransport {
    /// The session every request goes through.
    public let session: any NetworkSession

    /// Creates a transport over `session`.
    public init(session: any NetworkSession) {
        self.session = session
    }

    /// Sends `request` (its path and query as generated, appended to `baseURL`) and returns as soon
    /// as the response head arrives, with the body to read as it comes.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let response = try await session.requestStream(for: try Self.outgoing(request, body: body, baseURL: baseURL))
        if request.method == .head || [204, 304].contains(response.statusCode.rawValue) {
            return try await Self.bodiless(response)
        }
        return try Self.converted(response)
    }

    // What does not wait is in synchronous functions of its own: an async function's frame is
    // allocated from its task and held for as long as the call runs, and the values converted here
    // (a request, a response head, a streamed response) would take room in it.

    /// Net's request for a generated one.
    @inline(never)
    private static func outgoing(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) throws -> NetworkRequest {
        var outgoing = try NetworkRequest(request, body: NetworkRequestBody(body), baseURL: baseURL)
        // The framing is the body's to say, as AsyncHTTPClient's own framing does: a
        // `Content-Length` a middleware left behind after changing the body would have the server
        // read too few or too many bytes, a second one or a `Transfer-Encoding` contradict it.
        outgoing.headers.remove(name: "Transfer-Encoding")
        outgoing.headers.remove(name: "Content-Length")
        return outgoing
    }

    /// A response with a body to read as it arrives: its head converted, the body handed over.
    @inline(never)
    private static func converted(_ response: NetworkStreamResponse) throws -> (HTTPResponse, HTTPBody?) {
        let head = try HTTPResponse(response.response)
        // A decoded body's length is not the Content-Length of its encoded bytes.
        let length: HTTPBody.Length = response.response.hasContentCoding
            ? .unknown : response.response.expectedContentLength.map { .known($0) } ?? .unknown
        return (head, HTTPBody(response.body.map { ArraySlice($0) }, length: length, iterationBehavior: .single))
    }

    /// A response with no body by definition: its (empty) end read, so that the connection goes
    /// back to the pool.
    @inline(never)
    private static func bodiless(_ response: NetworkStreamResponse) async throws -> (HTTPResponse, HTTPBody?) {
        let head = try HTTPResponse(response.response)
        for try await _ in response.body {}
        return (head, nil)
    }
}

extension NetworkRequestBody {
    /// A generated request's body as a stream Net sends as it is produced: `nil` is no body; a
    /// known length is sent with `Content-Length`, an unknown one chunked.
    public init(_ body: HTTPBody?) {
        guard let body else {
            self = .none
            return
        }
        let length: Int64? = if case .known(let count) = body.length { count } else { nil }
        self = .stream(NetworkBodyStream(length: length) { body.map { Data($0) } })
    }
}
#endif
