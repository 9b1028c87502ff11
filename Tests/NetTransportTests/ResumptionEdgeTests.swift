import Foundation
import NetCore
import NetTransport
import Synchronization
import Testing

/// What Werkzeug never does, played by a stub under the session: answers to a ranged request that
/// do not continue the partial bytes. Each must start over and still end with the right file.
@Suite("Resumable downloads: answers that do not continue the bytes start over")
struct ResumptionEdgeTests {
    static let whole = Data("0123456789".utf8)

    enum Answer: String, CaseIterable, CustomTestStringConvertible {
        case continues, otherValidator, otherStart, endsEarly, unsatisfiable, contentCoded
        var testDescription: String { rawValue }

        var response: StubResponse {
            let tail = Data("56789".utf8)
            switch self {
            case .continues:
                return .status(.partialContent, headers: [.header(key: "ETag", value: "\"v1\""), .header(key: "Content-Range", value: "bytes 5-9/10")], body: tail)
            case .otherValidator:
                return .status(.partialContent, headers: [.header(key: "ETag", value: "\"v2\""), .header(key: "Content-Range", value: "bytes 5-9/10")], body: Data("xxxxx".utf8))
            case .otherStart:
                return .status(.partialContent, headers: [.header(key: "ETag", value: "\"v1\""), .header(key: "Content-Range", value: "bytes 3-9/10")], body: Data("3456789".utf8))
            case .endsEarly:
                return .status(.partialContent, headers: [.header(key: "ETag", value: "\"v1\""), .header(key: "Content-Range", value: "bytes 5-8/10")], body: Data("5678".utf8))
            case .unsatisfiable:
                return .status(HTTPCode(rawValue: 416), headers: [.header(key: "Content-Range", value: "bytes */10")])
            case .contentCoded:
                return .status(.partialContent, headers: [
                    .header(key: "ETag", value: "\"v1\""), .header(key: "Content-Range", value: "bytes 5-9/10"), .header(key: "Content-Encoding", value: "gzip"),
                ], body: tail)
            }
        }
    }

    @Test("a ranged answer is appended only when it continues the recorded bytes", arguments: Answer.allCases)
    func answer(_ answer: Answer) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file")
        let url = "https://example.com/file"
        try Data("01234".utf8).write(to: URL(fileURLWithPath: destination.path + ".part"))
        try Data(#"{"url":"https://example.com/file","ifRange":"\"v1\""}"#.utf8).write(to: URL(fileURLWithPath: destination.path + ".part.json"))

        let stub = StubTransport { request in
            request.headers["Range"] == nil
                ? .status(.ok, headers: [.header(key: "ETag", value: "\"v1\"")], body: Self.whole)
                : answer.response
        }
        let response = try await NetworkClient(transport: stub).requestResumableDownload(for: url, to: destination)
        #expect(try Data(contentsOf: destination) == Self.whole)
        let ranges = stub.requests.map { $0.request.headers["Range"] }
        #expect(stub.requests.first?.request.headers["If-Range"] == "\"v1\"")
        if answer == .continues {
            #expect(ranges == ["bytes=5-"] && response.statusCode == 206)
        } else {
            #expect(ranges == ["bytes=5-", nil] && response.statusCode == 200, "started over: \(ranges)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file"])
    }

    @Test("a record that is not a regular file (a FIFO nobody writes) is not read: the download starts over", .timeLimit(.minutes(3)))
    func recordNotRegular() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file")
        try Data("01234".utf8).write(to: URL(fileURLWithPath: destination.path + ".part"))
        #expect(mkfifo(destination.path + ".part.json", 0o600) == 0)  // reading it would wait for a writer for good
        let stub = StubTransport { _ in .status(.ok, headers: [.header(key: "ETag", value: "\"v1\"")], body: Self.whole) }
        let response = try await NetworkClient(transport: stub).requestResumableDownload(for: "https://example.com/file", to: destination)
        #expect(response.statusCode == 200 && stub.requests.map { $0.request.headers["Range"] } == [nil])
        #expect(try Data(contentsOf: destination) == Self.whole)
    }
}

/// A transport whose every answer is a 200 with a strong entity tag and a content coding, its body
/// cut after five bytes: what a server that encodes despite `identity` sends when its connection drops.
private final class CodedAndCutTransport: Transport {
    /// Each request's `Range` field, in order.
    let ranges = Mutex<[String?]>([])

    func exchange(_ request: NetworkRequest, progress: TransportProgressHandler?) async throws -> NetworkStreamResponse {
        ranges.withLock { $0.append(request.headers["Range"]) }
        var headers = NetworkHeaders()
        try headers.add(name: "ETag", value: "\"v1\"")
        try headers.add(name: "Content-Encoding", value: "gzip")
        let head = NetworkResponseHead(statusCode: .ok, headers: headers, url: request.url)
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("01234".utf8))
            continuation.finish(throwing: NetworkError.transport(.connectionLost("cut after five bytes")))
        }
        return NetworkStreamResponse(response: head, body: NetworkResponseBody(chunks), originalRequest: request)
    }
}

extension ResumptionEdgeTests {
    @Test("an answer with a content coding cannot be continued: an interrupted call leaves no bytes, and the next asks for no range")
    func contentCodedIsNotKept() async throws {
        let directory = try TransportTest.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = CodedAndCutTransport()
        let client = NetworkClient(transport: transport)
        for _ in 0..<2 {
            await #expect(throws: NetworkError.self) {
                _ = try await client.requestResumableDownload(for: "https://example.com/file", to: directory.appendingPathComponent("file"))
            }
            // Its strong entity tag would make it resumable, but offsets into encoded bytes cannot
            // be trusted: nothing is kept, so the next call asks for no range.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
        #expect(transport.ranges.withLock { $0 } == [nil, nil])
    }
}
