import Foundation
import NetCore
import NetTransport
import Testing
#if canImport(NetTestSupport)
import NetTestSupport  // WerkzeugPeer
#endif

/// Client features that must behave the same whichever transport is below them, against Werkzeug
/// (`Tests/Peers/werkzeug_peer.py`): cookies (URLSession hands repeated `Set-Cookie` fields over
/// joined with commas, AsyncHTTPClient one by one), resumable downloads (byte offsets must count
/// what the transport delivers) and HAR recording of a streamed body.
enum TransportClientFeatures {
    /// One check, named.
    struct Check: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (@escaping @Sendable () -> any Transport) async throws -> Void
        var testDescription: String { name }
    }

    struct Echo: Decodable { var cookie: String? }

    static let checks: [Check] = [
        Check(name: "a cookie jar stores every Set-Cookie of a response and of a redirect, and sends them back") { make in
            let base = try await WerkzeugPeer.shared.baseURL()
            let jar = CookieJar()
            let client = NetworkClient(transport: make(), cookieJar: jar)
            let attributes = "Expires%3DWed,%2021%20Oct%202099%2007:28:00%20GMT"
            _ = try await client.requestData(for: "\(base)/cookies/set?a=1&b=2&attributes=\(attributes)")
            let echoed = try await client.requestData(for: "\(base)/cookies/redirect?to=/cookies/echo&c=3")
            #expect(try JSONDecoder().decode(Echo.self, from: echoed.data).cookie == "a=1; b=2; c=3")
            #expect(jar.cookies.filter { $0.expires != nil }.map(\.name).sorted() == ["a", "b"])
        },
        // AsyncHTTPClient drops the body bytes it has buffered when the connection fails
        // (measured: 30 KB of the 123 KB the server sent before its cut), so a transport may
        // need more continuations than there are cuts; each must keep more bytes than the last.
        Check(name: "a download cut twice is continued, each attempt keeping more, and equals the whole file") { make in
            let base = try await WerkzeugPeer.shared.baseURL()
            let client = NetworkClient(transport: make())
            let name = "conformance-\(UUID().uuidString.prefix(8))"
            let url = "\(base)/file/\(name)?size=500000&cuts=123457,400000"
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file")
            var kept: [Int] = []
            while true {
                do {
                    _ = try await client.requestResumableDownload(for: url, to: destination)
                    break
                } catch {
                    let size = (try? FileManager.default.attributesOfItem(atPath: destination.path + ".part")[.size] as? NSNumber)?.intValue ?? 0
                    try #require(size > (kept.last ?? 0) && size <= 400_000, "an interruption kept \(size) bytes after \(kept): \(error)")
                    kept.append(size)
                }
            }
            #expect(kept.contains { $0 <= 123_457 } && kept.contains { $0 > 123_457 }, "both cuts interrupted: \(kept)")
            let whole = try await client.requestData(for: "\(base)/content/\(name)?size=500000").data
            #expect(try Data(contentsOf: destination) == whole)
        },
        Check(name: "a HAR recorder keeps a streamed body exactly as it was read") { make in
            let base = try await WerkzeugPeer.shared.baseURL()
            let recorder = HARRecorder()
            let client = NetworkClient(transport: recorder.recording(make()))
            let stream = try await client.requestStream(for: "\(base)/content/har-stream?size=300000")
            var read = Data()
            for try await chunk in stream.body { read.append(chunk) }
            let content = try #require(recorder.archive.log.entries.last?.response.content)
            #expect(content.size == 300_000 && content.encoding == "base64")
            #expect(content.text.flatMap { Data(base64Encoded: $0) } == read)
        },
    ]
}

@Suite("Client features: URLSessionTransport")
struct URLSessionTransportClientFeatureTests {
    @Test("URLSessionTransport", arguments: TransportClientFeatures.checks)
    func feature(_ check: TransportClientFeatures.Check) async throws {
        try await check.run { URLSessionTransport() }
    }
}

#if AsyncHTTPClient  // the package trait
import NetAsyncHTTPClient

@Suite("Client features: AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportClientFeatureTests {
    @Test("AsyncHTTPClientTransport", arguments: TransportClientFeatures.checks)
    func feature(_ check: TransportClientFeatures.Check) async throws {
        try await check.run { AsyncHTTPClientTransport() }
    }
}
#endif
