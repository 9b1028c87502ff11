import Foundation
import Net
import Testing

/// Docs/Streaming.md's samples, verbatim (``DocumentationCoverageTests`` checks); the ones that
/// need no real service run against `StubTransport`.
@Suite("Docs/Streaming.md samples")
struct StreamingDocumentationSamples {
    struct CompletionRequest: Encodable { let prompt: String; let stream: Bool }
    struct Token: Decodable { let text: String }

    func complete(_ prompt: String, client: NetworkClient) async throws -> String {
        let request = try NetworkRequest(
            url: "https://llm.example.com/v1/completions", httpMethod: .post,
            jsonBody: CompletionRequest(prompt: prompt, stream: true))
        let stream = try await client.requestStream(for: request)
        var text = ""
        for try await event in stream.body.serverSentEvents() {
            if event.data == "[DONE]" { break }
            let token = try JSONDecoder().decode(Token.self, from: Data(event.data.utf8))
            print(token.text, terminator: "")
            text += token.text
        }
        return text
    }

    /// Compiled only: it follows a real feed until cancelled.
    func followNotifications(client: NetworkClient, resumeFrom savedID: String) async throws {
        let notifications = client.eventSource(
            for: "https://example.com/notifications",
            reconnection: EventSourceReconnection(defaultRetry: .seconds(3), maximumAttempts: nil),
            lastEventID: savedID)
        for try await event in notifications where event.type == "notification" {
            print(event.data)
            UserDefaults.standard.set(event.lastEventID, forKey: "notifications.lastEventID")
        }
    }

    struct LogEntry: Decodable { let level: String; let message: String }

    func tail(client: NetworkClient) async throws {
        let stream = try await client.requestStream(for: "https://example.com/logs?follow=1")
        for try await entry in stream.body.jsonLines(of: LogEntry.self) {
            print("[\(entry.level)] \(entry.message)")
        }
    }

    func decodeRecordedStream() throws -> [ServerSentEvent] {
        var decoder = ServerSentEventDecoder()
        var events = try decoder.decode(Data("event: add\nid: 7\ndata: first\r\n".utf8))
        events += try decoder.decode(Data("data: line\n\n".utf8))
        // events == [ServerSentEvent(type: "add", data: "first\nline", lastEventID: "7")]
        return events
    }

    @Test("The token stream stops at [DONE] and returns the text; the log tail decodes each line; the recorded stream decodes as its comment says")
    func samples() async throws {
        let stub = StubTransport()
        stub.on(.post, "/v1/completions", respond: .text(
            "data: {\"text\":\"Hel\"}\n\ndata: {\"text\":\"lo\"}\n\ndata: [DONE]\n\ndata: {\"text\":\"never\"}\n\n",
            headers: [NetworkHeader(name: "Content-Type", value: "text/event-stream")]))
        stub.on(.get, "/logs", respond: .text("{\"level\":\"info\",\"message\":\"up\"}\n{\"level\":\"warn\",\"message\":\"slow\"}\n"))
        let client = NetworkClient(transport: stub)
        #expect(try await complete("Say hello", client: client) == "Hello")
        try await tail(client: client)
        #expect(try decodeRecordedStream() == [ServerSentEvent(type: "add", data: "first\nline", lastEventID: "7")])
    }

    @Test("An event source on a stub: events, then 204 stops it")
    func eventSourceOnStub() async throws {
        let stub = StubTransport()
        stub.on(.get, "/feed", respond:
            .text("id: 1\ndata: a\n\n", headers: [NetworkHeader(name: "Content-Type", value: "text/event-stream")]),
            .status(.noContent))
        var received: [String] = []
        do {
            for try await event in NetworkClient(transport: stub).eventSource(for: "https://example.com/feed", reconnection: .init(defaultRetry: .zero)) {
                received.append(event.data)
            }
            Issue.record("the source ended without an error")
        } catch NetworkError.stream(.stoppedByServer) {
            #expect(received == ["a"])
        }
        #expect(stub.requests.last?.request.headers["Last-Event-ID"] == "1")
    }
}
