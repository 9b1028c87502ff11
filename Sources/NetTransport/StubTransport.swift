import Foundation
import NetCore

/// An in-memory ``Transport`` for testing code above the transport: sessions, interceptors,
/// your API client. No sockets, no URLProtocol.
///
/// Answer by route (method + path pattern) with canned responses, a sequence of them (the last
/// repeats), or a closure; anything unmatched gets the fallback (404). The stub records every
/// request with its body, honours cancellation during a delay (the pipeline's deadline ends it
/// like any other exchange), and reports upload progress.
///
/// ```swift
/// let stub = StubTransport()
/// stub.on(.get, "/films/:id", respond: .json(#"{"title":"Ran"}"#))
/// stub.on(.post, "/login", respond: .status(503), .status(200))
/// let session = NetworkClient(transport: stub)
/// ```
public final class StubTransport: Transport {
    /// A request the stub received, with its body read out.
    public struct RecordedRequest: Sendable {
        /// The request as the stub received it.
        public let request: NetworkRequest
        /// Every byte of its body (files and streams read in full).
        public let body: Data
    }

    private struct State: Sendable {
        var routes: [StubRoute] = []
        var positions: [Int: Int] = [:]
        var recorded: [RecordedRequest] = []
    }

    /// What a request is answered with, chosen under the lock.
    private enum Pick: Sendable {
        case canned(StubResponse)
        case handler(@Sendable (NetworkRequest) async throws -> StubResponse)
        case fallback
    }

    private let state = Locked(State())
    private let fallback: StubResponse

    /// Creates a stub that answers unmatched requests with `fallback` (a 404 by default).
    public init(fallback: StubResponse = .status(.notFound)) {
        self.fallback = fallback
    }

    /// Creates a stub that answers every request with `handler`.
    public convenience init(handler: @escaping @Sendable (NetworkRequest) async throws -> StubResponse) {
        self.init()
        on(nil, "*", handler: handler)
    }

    /// Answers requests matching `method` (any method when `nil`) and `path` with `responses`
    /// in turn; the last one repeats. Routes are tried in the order they were added.
    public func on(_ method: NetworkHttpMethod?, _ path: String, respond responses: StubResponse...) {
        let route = StubRoute(method: method, pattern: path, responder: .sequence(responses.isEmpty ? [fallback] : responses))
        state.withLock { $0.routes.append(route) }
    }

    /// Answers requests matching `method` (any method when `nil`) and `path` with `handler`.
    public func on(_ method: NetworkHttpMethod?, _ path: String, handler: @escaping @Sendable (NetworkRequest) async throws -> StubResponse) {
        let route = StubRoute(method: method, pattern: path, responder: .handler(handler))
        state.withLock { $0.routes.append(route) }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] {
        state.withLock { $0.recorded }
    }

    /// Forgets recorded requests and restarts response sequences; routes stay.
    public func reset() {
        state.withLock { state in
            state.recorded = []
            state.positions = [:]
        }
    }

    /// Answers `request` as the routes say.
    public func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        try request.validate()
        try Task.checkCancellation()
        let body = try await Self.readBody(of: request, progress: progress)
        let pick = state.withLock { state -> Pick in
            state.recorded.append(RecordedRequest(request: request, body: body))
            guard let index = state.routes.firstIndex(where: { $0.matches(request) }) else { return .fallback }
            switch state.routes[index].responder {
            case .handler(let handler):
                return .handler(handler)
            case .sequence(let responses):
                let position = state.positions[index, default: 0]
                state.positions[index] = position + 1
                return .canned(responses[min(position, responses.count - 1)])
            }
        }
        let answer: StubResponse = switch pick {
        case .canned(let response): response
        case .handler(let handler): try await handler(request)
        case .fallback: fallback
        }
        // Held to the longest wait: a clock's sleep traps past `Int64.max` seconds.
        if answer.delay > .zero { try await Task.sleep(for: answer.delay.heldToLongestWait) }
        switch answer.outcome {
        case .failure(let failure):
            throw NetworkError.transport(failure)
        case .response(let status, let fields, let responseBody):
            var headers = try NetworkHeaders(fields)
            if !headers.contains(name: "Content-Length") {
                // A token and decimal digits: nothing to validate.
                headers.appendPrevalidated(name: "Content-Length", value: String(responseBody.count))
            }
            let head = NetworkResponseHead(statusCode: status, headers: headers, url: request.url)
            let delivered = request.httpMethod == .head ? Data() : responseBody
            let body = delivered.count <= StubChunks.size ? NetworkResponseBody(delivered) : NetworkResponseBody(StubChunks(data: delivered))
            return NetworkStreamResponse(response: head, body: body, originalRequest: request)
        }
    }

    private static func readBody(of request: NetworkRequest, progress: TransportProgressHandler?) async throws -> Data {
        let expected = try request.body.contentLength()
        var body = Data()
        switch request.body {
        case .none: return body
        case .data(let data): body = data
        case .file(let url):
            do { body = try Data(contentsOf: url) } catch {
                throw NetworkError.request(.unreadableBodyFile(path: url.path, reason: "\(error)"))
            }
        case .stream(let stream):
            var reader = stream.makeReader()
            while let chunk = try await reader.next() {
                body.append(chunk)
                progress?(NetworkProgress(direction: .upload, completedBytes: Int64(body.count), expectedBytes: expected))
            }
            return body
        }
        progress?(NetworkProgress(direction: .upload, completedBytes: Int64(body.count), expectedBytes: expected))
        return body
    }
}

/// A stubbed body delivered in 64 KiB chunks, as a network would.
private struct StubChunks: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Failure = any Error
    static let size = 65_536
    let data: Data

    func makeAsyncIterator() -> Iterator { Iterator(data: data) }

    struct Iterator: AsyncIteratorProtocol {
        let data: Data
        var offset = 0

        mutating func next() async throws -> Data? {
            guard offset < data.count else { return nil }
            let end = Swift.min(data.count, offset + StubChunks.size)
            defer { offset = end }
            return data.subdata(in: data.startIndex + offset..<data.startIndex + end)
        }
    }
}
