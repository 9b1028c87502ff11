import Foundation
import HTTPTypes
import Hummingbird
import NetCore
import OpenAPIHummingbird
import OpenAPIRuntime
import Synchronization

/// The generated server (Generated/Server.swift) on Hummingbird, on 127.0.0.1: one per test
/// process, shared by every test. What it saw is in ``state``.
enum OpenAPITestServer {
    /// What the server saw and the switches tests hold it by.
    static let state = OpenAPIServerState()

    private static let shared = SharedLoopbackServer(channelHandlers: { [SentBodyCounter(state: state)] }) {
        let router = Router()
        router.add(middleware: RawRequestCapture())
        guard let prefix = URL(string: "/api") else { throw ServerTestError(description: "no /api URL") }
        try OpenAPITestAPI(state: state).registerHandlers(on: router, serverURL: prefix)
        return router
    }

    /// The server URL a generated client takes: `http://127.0.0.1:PORT/api`.
    static func serverURL() async throws -> URL {
        try await shared.baseURL().appendingPathComponent("api")
    }
}

/// Counters and gates, shared by the server's handlers and the tests.
final class OpenAPIServerState: Sendable {
    private struct Values {
        var arrivals: [String: Int] = [:]
        var flaky: [String: Int] = [:]
        var heldStreams: [String: CheckedContinuation<Void, Never>] = [:]
        var releasedStreams: Set<String> = []
        /// Event streams that have begun: they send their first event, then nothing until released.
        var startedStreams: Set<String> = []
        var validTokens: Set<String> = []
        var produced: [String: Int64] = [:]
        var sent: [String: Int64] = [:]
        var released: Set<String> = []
    }
    private let values = Mutex(Values())

    /// How many requests arrived for `target` (a path, with the query for `/api/items`).
    func arrivals(_ path: String) -> Int { values.withLock { $0.arrivals[path, default: 0] } }

    func arrived(_ path: String) { values.withLock { $0.arrivals[path, default: 0] += 1 } }

    /// Makes `getMe` accept `token`.
    func allow(_ token: String) { _ = values.withLock { $0.validTokens.insert(token) } }

    func accepts(_ token: String) -> Bool { values.withLock { $0.validTokens.contains(token) } }

    /// How many times `key` was asked for before this request.
    func flakyAttempt(_ key: String) -> Int {
        values.withLock { values in
            defer { values.flaky[key, default: 0] += 1 }
            return values.flaky[key, default: 0]
        }
    }

    /// Whether the event stream `key` has begun and is not released: it sends nothing past its
    /// first event until ``release(_:)``. Marked before that event is written, so a client that
    /// reads it at once does not find the stream between its first event and its wait.
    func isHolding(_ key: String) -> Bool {
        values.withLock { $0.startedStreams.contains(key) && !$0.releasedStreams.contains(key) }
    }

    /// Notes that the event stream `key` has begun (see ``isHolding(_:)``).
    func start(stream key: String) { _ = values.withLock { $0.startedStreams.insert(key) } }

    /// Lets the event stream `key` send the rest.
    func release(_ key: String) {
        let waiting = values.withLock { values in
            values.releasedStreams.insert(key)
            return values.heldStreams.removeValue(forKey: key)
        }
        waiting?.resume()
    }

    func hold(_ key: String) async {
        await withCheckedContinuation { continuation in
            let released = values.withLock { values in
                if values.releasedStreams.contains(key) { return true }
                values.heldStreams[key] = continuation
                return false
            }
            if released { continuation.resume() }
        }
    }

    /// How many bytes the download named `key` has produced so far (handed to Hummingbird).
    func produced(_ key: String) -> Int64 { values.withLock { $0.produced[key, default: 0] } }

    func addProduced(_ count: Int, for key: String) { values.withLock { $0.produced[key, default: 0] += Int64(count) } }

    /// How many body bytes of the download named `key` the server's socket has taken
    /// (``SentBodyCounter``): at most what it produced.
    func sent(_ key: String) -> Int64 { values.withLock { $0.sent[key, default: 0] } }

    /// Notes that the socket took `count` more body bytes of the download named `key`.
    func addSent(_ count: Int, for key: String) { values.withLock { $0.sent[key, default: 0] += Int64(count) } }

    /// Whether the server let go of the download named `key`'s body: read to its end, or dropped
    /// when the connection closed.
    func isReleased(_ key: String) -> Bool { values.withLock { $0.released.contains(key) } }

    func release(download key: String) { _ = values.withLock { $0.released.insert(key) } }
}

/// Keeps each request's head for the handlers: the generated server hands them no header it did
/// not declare (such as `Authorization`, a security scheme), and no raw query. Also makes the
/// item list cacheable: a generated server would percent-encode a declared header's value.
struct RawRequestCapture: RouterMiddleware {
    typealias Context = BasicRequestContext
    @TaskLocal static var current: Request?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await Self.$current.withValue(request) { try await next(request, context) }
        if request.uri.path == "/api/items", request.method == .get {
            response.headers[.cacheControl] = "public, max-age=600"
        }
        return response
    }
}

/// The generated `APIProtocol`, implemented for the tests.
struct OpenAPITestAPI: APIProtocol {
    let state: OpenAPIServerState

    static let items: [Components.Schemas.Item] = [
        .init(id: 1, name: "kettle", tags: ["kitchen"]),
        .init(id: 2, name: "lamp", tags: ["light", "home"]),
        .init(id: 3, name: "spoon", tags: ["kitchen", "small"]),
    ]

    func listItems(_ input: Operations.ListItems.Input) async throws -> Operations.ListItems.Output {
        state.arrived("/api/items?" + (RawRequestCapture.current?.uri.query ?? ""))
        let tags = Set(input.query.tag ?? [])
        let matching = Self.items.filter { tags.isEmpty || !tags.isDisjoint(with: $0.tags) }.prefix(input.query.limit ?? .max)
        let query = RawRequestCapture.current?.uri.query ?? ""
        return .ok(.init(body: .json(.init(items: Array(matching), query: query))))
    }

    func createItem(_ input: Operations.CreateItem.Input) async throws -> Operations.CreateItem.Output {
        guard case .json(let item) = input.body else { throw ServerTestError(description: "not JSON") }
        return .created(.init(body: .json(.init(id: 4, name: item.name, tags: item.tags ?? []))))
    }

    func uploadFile(_ input: Operations.UploadFile.Input) async throws -> Operations.UploadFile.Output {
        guard case .multipartForm(let parts) = input.body else { throw ServerTestError(description: "not multipart") }
        var description = ""
        var bytes: Int64 = 0
        var checksum = FNV1a()
        for try await part in parts {
            switch part {
            case .description(let text):
                description = try await String(collecting: text.payload.body, upTo: 1 << 20)
            case .file(let file):
                for try await chunk in file.payload.body {
                    bytes += Int64(chunk.count)
                    checksum.update(chunk)
                }
            case .undocumented:
                break
            }
        }
        return .ok(.init(body: .json(.init(description: description, bytes: bytes, checksum: checksum.hex))))
    }

    func download(_ input: Operations.Download.Input) async throws -> Operations.Download.Output {
        let size = input.path.size
        let key = SentBodyCounter.keyField.flatMap { RawRequestCapture.current?.headers[$0] } ?? ""
        let state = self.state
        let bytes = PatternBytes(size: size, produced: { state.addProduced($0, for: key) }, released: { state.release(download: key) })
        return .ok(.init(body: .binary(HTTPBody(bytes, length: .known(size), iterationBehavior: .single))))
    }

    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        let (key, count, state) = (input.query.key, input.query.count, self.state)
        let lines = AsyncStream<ArraySlice<UInt8>> { continuation in
            state.start(stream: key)
            let task = Task {
                for sequence in 0..<count {
                    if sequence == 1 { await state.hold(key) }
                    let line = #"{"sequence":\#(sequence),"text":"event \#(sequence)"}"# + "\n"
                    continuation.yield(ArraySlice(line.utf8))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return .ok(.init(body: .applicationJsonl(HTTPBody(lines, length: .unknown, iterationBehavior: .single))))
    }

    func flaky(_ input: Operations.Flaky.Input) async throws -> Operations.Flaky.Output {
        let attempt = state.flakyAttempt(input.path.key)
        if attempt < input.query.failures { return .serviceUnavailable(.init()) }
        return .ok(.init(body: .json(.init(attempts: attempt + 1))))
    }

    func getMe(_ input: Operations.GetMe.Input) async throws -> Operations.GetMe.Output {
        let authorization = RawRequestCapture.current?.headers[.authorization] ?? ""
        state.arrived("/api/me " + authorization)
        guard authorization.hasPrefix("Bearer "), state.accepts(String(authorization.dropFirst(7))) else {
            return .unauthorized(.init(headers: .init(wwwAuthenticate: "Bearer")))
        }
        return .ok(.init(body: .json(.init(user: "ann", authorization: authorization))))
    }
}

/// The 64-bit FNV-1a hash: client and server compare uploads by it.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    var hex: String { String(value, radix: 16) }
}

struct ServerTestError: Error, CustomStringConvertible {
    let description: String
}

/// `size` bytes, byte i being i % 251, made 64 KiB at a time only when the server asks for them
/// (`produced` counts them; what its socket took is counted by ``SentBodyCounter``), and
/// `released` runs when the server lets go of the body (read to its end, or dropped on a close).
struct PatternBytes: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let size: Int64
    let produced: @Sendable (Int) -> Void
    let released: @Sendable () -> Void

    final class AsyncIterator: AsyncIteratorProtocol {
        private let size: Int64
        private let produced: @Sendable (Int) -> Void
        private let released: @Sendable () -> Void
        private var offset: Int64 = 0

        init(size: Int64, produced: @escaping @Sendable (Int) -> Void, released: @escaping @Sendable () -> Void) {
            self.size = size
            self.produced = produced
            self.released = released
        }

        deinit { released() }

        func next() async -> ArraySlice<UInt8>? {
            guard offset < size else { return nil }
            let count = Int(Swift.min(Int64(PatternBytes.chunkSize), size - offset))
            let start = Int(offset % 251)
            offset += Int64(count)
            produced(count)
            return PatternBytes.pattern[start..<start + count]
        }
    }

    static let chunkSize = 64 << 10
    /// Enough of the pattern for a chunk starting anywhere in its 251-byte period.
    static let pattern: [UInt8] = (0..<(chunkSize + 251)).map { UInt8($0 % 251) }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(size: size, produced: produced, released: released) }
}
