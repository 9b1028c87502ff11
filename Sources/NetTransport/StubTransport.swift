import Foundation
import NetCore

/// An in-memory ``Transport`` for testing code above the transport: sessions, interceptors,
/// your API client. No sockets, no URLProtocol.
///
/// Answer by route (method + path pattern) with canned responses, a sequence of them (the last
/// repeats), or a closure; anything unmatched gets the fallback (404). The stub records every
/// request with its body, honours cancellation and the request's timeout during a delay, and
/// reports upload and download progress.
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
    public func send(
        _ request: NetworkRequest, to destination: TransportBodyDestination, progress: TransportProgressHandler?
    ) async throws -> TransportResponse {
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
        try await Self.wait(answer.delay, timeout: request.timeout, request: request)
        switch answer.outcome {
        case .failure(let failure):
            throw NetworkError.transport(failure)
        case .response(let status, let fields, let responseBody):
            var headers = try NetworkHeaders(fields)
            if !headers.contains(name: "Content-Length") {
                try headers.add(name: "Content-Length", value: String(responseBody.count))
            }
            let head = NetworkResponseHead(statusCode: status, headers: headers, url: request.url)
            let delivered = request.httpMethod == .head ? Data() : responseBody
            Self.reportDownload(of: delivered.count, progress: progress)
            guard case .file(let url) = destination else { return TransportResponse(head: head, body: delivered) }
            do { try delivered.write(to: url, options: .atomic) } catch {
                throw NetworkError.transport(.cannotWriteBody(path: url.path, reason: "\(error)"))
            }
            return TransportResponse(head: head, fileURL: url, bodyByteCount: Int64(delivered.count))
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

    /// Sleeps `delay`, or fails with `timedOut` when the request's timeout is shorter.
    private static func wait(_ delay: Duration, timeout: Duration?, request: NetworkRequest) async throws {
        guard delay > .zero else { return }
        if let timeout, timeout < delay {
            try await Task.sleep(for: timeout)
            throw NetworkError.transport(.timedOut("stubbed delay \(delay) exceeds the timeout \(timeout) (\(request))"))
        }
        try await Task.sleep(for: delay)
    }

    /// Reports a body's arrival in 64 KiB steps, as a network would.
    private static func reportDownload(of count: Int, progress: TransportProgressHandler?) {
        guard let progress else { return }
        var delivered = 0
        repeat {
            delivered = min(count, delivered + 65_536)
            progress(NetworkProgress(direction: .download, completedBytes: Int64(delivered), expectedBytes: Int64(count)))
        } while delivered < count
    }
}
