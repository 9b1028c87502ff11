import Foundation
import NetCore
import NetTransport
import NetTestSupport
import Testing

/// Recording a client's traffic with Werkzeug as the server, checking the file with a JSON
/// Schema written from the HAR 1.2 spec (Python's jsonschema) and with haralyzer (an independent
/// HAR reader from PyPI), then replaying it offline.
@Suite("HAR record and replay")
struct HARTests {
    static let validator = """
        import json, sys, jsonschema
        from haralyzer import HarParser
        schema = json.load(open(sys.argv[1]))
        har = json.load(open(sys.argv[2]))
        jsonschema.Draft7Validator(schema).validate(har)
        parser = HarParser(har)
        entries = parser.har_data["entries"]
        print(json.dumps({"entries": len(entries), "statuses": [e["response"]["status"] for e in entries],
                          "methods": [e["request"]["method"] for e in entries]}))
        """

    struct Validated: Decodable, Equatable {
        var entries: Int
        var statuses: [Int]
        var methods: [String]
    }

    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers/har-1.2.schema.json").path

    /// A session's worth of traffic: JSON, a POST with a bearer token, a binary body, a redirect
    /// that sets a cookie, and a secret query value.
    static func traffic(_ client: NetworkClient, base: String) async throws -> [NetworkDataResponse] {
        var request = try NetworkRequest(url: "\(base)/cookies/echo", httpMethod: .post, httpBody: Data("token=sk-live-0123456789".utf8))
        try request.headers.set(name: "Authorization", value: "Bearer sk-live-0123456789")
        return [
            try await client.requestData(for: "\(base)/cookies/echo"),
            try await client.requestData(for: request),
            try await client.requestData(for: "\(base)/content/har-binary?size=1000"),
            try await client.requestData(for: "\(base)/cookies/redirect?to=/cookies/echo&session=abcdef123456"),
            try await client.requestData(for: "\(base)/cookies/echo?api_key=key-9876543210&page=2"),
        ]
    }

    @Test("a recorded session is valid HAR 1.2 for the schema and for haralyzer, redacted, with binary bodies in base64")
    func recordsValidRedactedHAR() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        let responses = try await Self.traffic(client, base: base)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)

        let output = try await runProcessOffPool("/usr/bin/env", ["python3", "-c", Self.validator, Self.schema, file.path])
        let validated = try JSONDecoder().decode(Validated.self, from: output)
        // The redirect is two exchanges: the 302 and the request it points to.
        #expect(validated == Validated(entries: 6, statuses: [200, 200, 200, 302, 200, 200], methods: ["GET", "POST", "GET", "GET", "GET", "GET"]))

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in ["sk-live-0123456789", "key-9876543210"] {
            #expect(!text.contains(secret), "\(secret) is in the archive")
        }
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let entries = recorder.archive.log.entries
        #expect(entries[1].request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer REDACTED" })
        #expect(entries[1].request.postData?.text == "token=REDACTED")
        let binary = entries[2].response.content
        #expect(binary.encoding == "base64" && binary.text.flatMap { Data(base64Encoded: $0) } == responses[2].data)
        #expect(entries[3].response.redirectURL == "/cookies/echo")
        #expect(entries[3].response.headers.contains { $0.name.lowercased() == "set-cookie" && $0.value == "REDACTED" })
        #expect(entries[5].request.queryString.map(\.value) == ["REDACTED", "2"])
        #expect(entries[5].request.url.hasSuffix("api_key=REDACTED&page=2"))
    }

    @Test("the archive replays offline: the same calls get the same answers, in recorded order; an unrecorded request fails, named")
    func replays() async throws {
        let base = try await WerkzeugPeer.shared.baseURL()
        let recorder = HARRecorder()
        let live = NetworkClient(transport: recorder.recording(URLSessionTransport()))
        let recorded = try await Self.traffic(live, base: base)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("net-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)

        let offline = NetworkClient(transport: try StubTransport(replaying: file))
        let replayed = try await Self.traffic(offline, base: base)
        #expect(replayed.map(\.statusCode) == recorded.map(\.statusCode))
        #expect(replayed.map(\.data) == recorded.map(\.data))
        await #expect {
            try await offline.requestData(for: "\(base)/never")
        } throws: { error in
            guard case NetworkError.transport(.other(let message)) = error else { return false }
            return message == "the HAR archive holds no exchange for GET \(base)/never"
        }
    }

    @Test("replay serves repeated requests in recorded order, the last repeating; bodies can be matched")
    func replayOrderAndBodies() async throws {
        let stub = StubTransport()
        stub.on(.get, "/flaky", respond: .status(.serviceUnavailable), .text("ok"))
        stub.on(.post, "/echo") { request in .text(String(decoding: request.httpBody ?? Data(), as: UTF8.self)) }
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        _ = try await client.requestData(for: "https://example.com/flaky")
        _ = try await client.requestData(for: "https://example.com/flaky")
        for word in ["one", "two"] {
            _ = try await client.requestData(for: try NetworkRequest(url: "https://example.com/echo", httpMethod: .post, httpBody: Data(word.utf8)))
        }
        let replay = NetworkClient(transport: StubTransport(replaying: recorder.archive, matchingBodies: true))
        var statuses: [HTTPCode] = []
        for _ in 0..<3 { statuses.append(try await replay.requestData(for: "https://example.com/flaky").statusCode) }
        #expect(statuses == [503, 200, 200])
        let two = try await replay.requestData(for: try NetworkRequest(url: "https://example.com/echo", httpMethod: .post, httpBody: Data("two".utf8)))
        #expect(two.data == Data("two".utf8))
    }

    @Test("credentials in form and JSON bodies and in redirect targets are redacted; a failure is an entry, replayed as a failure")
    func bodiesRedirectsAndFailures() async throws {
        let stub = StubTransport()
        stub.on(.post, "/oauth/token", respond: .json(
            #"{"access_token":"at-0123456789","token_type":"bearer","expires_in":3600,"nested":{"refresh_token":"rt-0123456789","password":87654321}}"#))
        stub.on(.get, "/go", respond: .status(.found, headers: [.header(key: "Location", value: "https://example.com/done?token=tk-0123456789")]))
        stub.on(.get, "/done", respond: .text("ok"))
        stub.on(.get, "/down", respond: .failure(.connectionLost("reset by peer")))
        stub.on(.post, "/upload", respond: .status(.noContent))
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        let form = try NetworkRequest(
            url: "https://example.com/oauth/token", httpMethod: .post,
            headers: [.header(key: "Content-Type", value: "application/x-www-form-urlencoded")],
            httpBody: Data("grant_type=password&username=ann&password=pw-0123456789&client_secret=cs-0123456789".utf8))
        _ = try await client.requestData(for: form)
        _ = try await client.requestData(for: "https://example.com/go")
        _ = try await client.requestData(for: try NetworkRequest(url: "https://example.com/upload", httpMethod: .post, httpBody: Data([0xFF, 0xFE, 0x00])))
        await #expect(throws: (any Error).self) { try await client.requestData(for: "https://example.com/down") }

        let text = String(decoding: try recorder.archive.encoded(), as: UTF8.self)
        for secret in ["at-0123456789", "rt-0123456789", "pw-0123456789", "cs-0123456789", "tk-0123456789", "87654321"] {
            #expect(!text.contains(secret), "\(secret) is in the archive")
        }
        let entries = recorder.archive.log.entries
        #expect(entries[0].request.postData?.text == "grant_type=password&username=ann&password=REDACTED&client_secret=REDACTED")
        #expect(entries[0].response.content.text
            == #"{"access_token":"REDACTED","token_type":"bearer","expires_in":3600,"nested":{"refresh_token":"REDACTED","password":"REDACTED"}}"#)
        let upload = try #require(entries.first { $0.request.url.hasSuffix("/upload") })
        #expect(upload.request.postData?.encoding == "base64" && upload.request.postData?.text == Data([0xFF, 0xFE, 0x00]).base64EncodedString())
        #expect(text.contains(#""_encoding" : "base64""#), "postData's base64 flag is the custom field _encoding")
        #expect(entries[1].response.redirectURL == "https://example.com/done?token=REDACTED")
        let failure = try #require(entries.last)
        #expect(failure.response.status == 0 && failure.comment?.contains("reset by peer") == true)

        let replay = NetworkClient(transport: StubTransport(replaying: recorder.archive))
        await #expect {
            try await replay.requestData(for: "https://example.com/down")
        } throws: { error in
            guard case NetworkError.transport(.other(let message)) = error else { return false }
            return message.contains("reset by peer")
        }
    }

    @Test("response fields are redacted too: a Link's next page with a token keeps its rel, a field echoing the request's credential is scrubbed")
    func responseFieldsRedacted() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", respond: .status(.ok, headers: [
            .header(key: "Link", value: #"<https://example.com/items?page=2&access_token=at-link-0123456789>; rel="next", <https://example.com/items?page=9>; rel="last""#),
            .header(key: "X-Debug-Echo", value: "you sent key-echo-0123456789"),
            // A `<` in a URL field, and an unclosed `<` in a Link: redacted all the same.
            .header(key: "Content-Location", value: "https://example.com/cb?q=<x&access_token=at-loc-0123456789"),
            .header(key: "Link", value: "<https://example.com/?access_token=at-open-0123456789; rel=next"),
        ]))
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        let request = try NetworkRequest(url: "https://example.com/items", headers: [.header(key: "X-Api-Key", value: "key-echo-0123456789")])
        _ = try await client.requestData(for: request)
        let text = String(decoding: try recorder.archive.encoded(), as: UTF8.self)
        for secret in ["at-link-0123456789", "key-echo-0123456789", "at-loc-0123456789", "at-open-0123456789"] {
            #expect(!text.contains(secret), "\(secret) is in the archive")
        }
        let headers = try #require(recorder.archive.log.entries.first).response.headers
        #expect(headers.first { $0.name == "Link" }?.value
            == #"<https://example.com/items?page=2&access_token=REDACTED>; rel="next", <https://example.com/items?page=9>; rel="last""#)
        #expect(headers.first { $0.name == "X-Debug-Echo" }?.value == "you sent REDACTED")
    }

    @Test("memory is bounded: large bodies are described, not kept; entries past the limit are counted")
    func bounded() async throws {
        let stub = StubTransport()
        stub.on(.get, "/big", respond: .status(.ok, body: Data(repeating: 7, count: 10_000)))
        let recorder = HARRecorder(maximumEntries: 2, maximumBodySize: 1_000)
        let client = NetworkClient(transport: recorder.recording(stub))
        for _ in 0..<5 { _ = try await client.requestData(for: "https://example.com/big") }
        #expect(recorder.archive.log.entries.count == 2)
        #expect(recorder.droppedEntryCount == 3)
        let content = try #require(recorder.archive.log.entries.first?.response.content)
        #expect(content.text == nil && content.size == 10_000 && content.comment?.contains("not recorded") == true)
    }

    @Test("the archive's URLs, query lists and header fields are bounded in all: a server's long redirect targets cannot fill memory")
    func headsBoundedInAll() async throws {
        // Every answer a 302 to a 40 KB target of 20,000 query items, until the redirect limit.
        let target = "/r?" + Array(repeating: "a", count: 20_000).joined(separator: "&")
        let stub = StubTransport()
        stub.on(.get, "/r", respond: .status(.found, headers: [.header(key: "Location", value: target)]))
        let recorder = HARRecorder()
        let client = NetworkClient(transport: recorder.recording(stub))
        for _ in 0..<10 {
            await #expect(throws: NetworkError.self) { _ = try await client.requestData(for: "https://example.com\(target)") }
        }
        let entries = recorder.archive.log.entries
        // The budget's own count: text, and 64 bytes more per name–value pair.
        let heads = entries.reduce(0) { total, entry in
            let pairs = entry.request.headers + entry.request.queryString + entry.response.headers
            let text = [entry.request.url, entry.response.redirectURL, entry.comment ?? "", entry.response.content.mimeType]
            return pairs.reduce(total + text.reduce(0) { $0 + $1.utf8.count }) { $0 + $1.name.utf8.count + $1.value.utf8.count + 64 }
        }
        #expect(heads <= 16 << 20, "\(heads) bytes of heads in \(entries.count) entries")
        #expect(entries.count > 0 && recorder.droppedEntryCount > 0)
        #expect(entries.count + recorder.droppedEntryCount == 10 * 11, "each call: the first request and ten redirects")
        #expect(entries.allSatisfy { $0.request.queryString.count == 20_000 }, "an entry is kept whole or not at all")
        // Full is full: a small exchange afterwards is counted, not kept, so no hole opens.
        stub.on(.get, "/small", respond: .text("ok"))
        _ = try await client.requestData(for: "https://example.com/small")
        #expect(recorder.archive.log.entries.count == entries.count && recorder.droppedEntryCount == 10 * 11 - entries.count + 1)
    }

    @Test("a Cookie's second cookie is not taken for a credential: text that repeats it is kept, the Cookie field itself redacted")
    func cookieNotSplitAsScheme() async throws {
        let stub = StubTransport()
        stub.on(.get, "/prefs", respond: .text("your theme=darkmode-plus"))
        let recorder = HARRecorder()
        let request = try NetworkRequest(url: "https://example.com/prefs", headers: [.header(key: "Cookie", value: "sid=s3cret-0123456789; theme=darkmode-plus")])
        _ = try await NetworkClient(transport: recorder.recording(stub)).requestData(for: request)
        let entry = try #require(recorder.archive.log.entries.first)
        #expect(entry.response.content.text == "your theme=darkmode-plus")
        #expect(entry.request.headers.first { $0.name == "Cookie" }?.value == "REDACTED")
    }

    @Test("a damaged HAR file is a typed error")
    func damaged() throws {
        #expect(throws: HARError.self) { try HARArchive(data: Data("{\"log\": {}}".utf8)) }
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).har")
        #expect(throws: HARError.self) { try StubTransport(replaying: missing) }
    }
}
