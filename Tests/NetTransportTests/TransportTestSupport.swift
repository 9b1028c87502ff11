import Foundation
import NetCore
import NetTransport
import Testing

/// Helpers shared by the URLSessionTransport tests.
enum TransportTest {
    static let transport = URLSessionTransport()

    static func url(_ path: String) async throws -> URL {
        let base = try await LoopbackServer.shared.baseURL()
        return try #require(URL(string: base.absoluteString + path))
    }

    static func request(_ path: String, method: NetworkHttpMethod = .get, headers: [NetworkHeader]? = nil,
                        body: NetworkRequestBody = .none, timeout: Duration? = nil) async throws -> NetworkRequest {
        try NetworkRequest(url: try await url(path), httpMethod: method, headers: headers, body: body, timeout: timeout)
    }

    static func echo(_ response: TransportResponse) throws -> EchoReply {
        try JSONDecoder().decode(EchoReply.self, from: response.body)
    }

    /// A new empty directory under the system's temporary directory.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("net-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The `TransportFailure` inside `error`, if it is a transport error.
    static func transportFailure(_ error: any Error) -> NetworkError.TransportFailure? {
        if case .transport(let failure) = error as? NetworkError { return failure }
        return nil
    }
}

/// Collects values from any thread, for progress reports.
final class Collected<Value: Sendable>: Sendable {
    private let storage = LockedBox<[Value]>([])
    func append(_ value: Value) { storage.mutate { $0.append(value) } }
    var values: [Value] { storage.read() }
}

import Synchronization
final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func mutate(_ body: @Sendable (inout Value) -> Void) { mutex.withLock { body(&$0) } }
    func read() -> Value { mutex.withLock { $0 } }
}
