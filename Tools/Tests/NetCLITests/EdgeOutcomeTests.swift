import Foundation
import Testing

/// Outcomes at the edges (helper-61's audit): downloads answered with a status that saves nothing,
/// the session file of a run that was rejected or answered with an error, a stream whose body
/// stalls past `--timeout`, and a URL whose query holds another URL.
@Suite("net: downloads that save nothing, sessions of failed runs, a stalled stream")
struct EdgeOutcomeTests {
    /// `net`'s environment with its temporary directory in `directory`, to see what it leaves there.
    private static func environment(temporary directory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = directory
        return environment
    }

    @Test("A 302 not followed, a 204 or a 404 leaves the file as it was and nothing in the temporary directory", arguments: [
        (["--no-follow"], "/redirect", Int32(0), "302, not a success (2xx)"), ([], "/status/204", 0, "204, which has no body"),
        ([], "/status/404", 4, ""),
    ])
    func downloadSavesNothing(_ options: [String], _ path: String, _ status: Int32, _ note: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let temporary = try ScratchDirectory()
        let destination = scratch.path("kept.txt")
        try Data("the user's file".utf8).write(to: URL(fileURLWithPath: destination))
        let result = try await ProcessRunner.net(["get"] + options + ["\(base)\(path)", "--download", destination],
                                                 environment: Self.environment(temporary: temporary.url.path))
        #expect(result.status == status, "\(result.standardError)")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: destination)), as: UTF8.self) == "the user's file")
        #expect(try scratch.contents() == ["kept.txt"])
        #expect(try temporary.contents() == [], "the response's body was left behind")
        if status == 0 {
            #expect(result.standardError == "net: \(destination) was left as it was: the server answered \(note)\n")
        }
    }

    @Test("A command line rejected before sending leaves the session file as it was")
    func rejectedRunKeepsSession() async throws {
        let scratch = try ScratchDirectory()
        let file = scratch.path("session.json")
        let result = try await ProcessRunner.net(["get", "--transport", "ahc", "--cacert", "/nonexistent/ca.pem",
                                                  "http://127.0.0.1:9/", "X-Team:red", "--session", file])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(try scratch.contents() == [], "a session was written for a run that sent nothing")
    }

    @Test("An error status keeps its exit status when the session cannot be saved, and stderr says why")
    func errorStatusBeforeSessionFailure() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let result = try await ProcessRunner.net(["get", "\(base)/status/404", "--session", scratch.path("missing/session.json")])
        #expect(result.status == 4, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("net: --session: cannot write \(scratch.path("missing/session.json")): No such file or directory"),
                "\(result.standardError)")
    }

    @Test("--timeout bounds a streamed body that stalls after its first event", arguments: ["ahc", "urlsession"])
    func stalledStreamTimesOut(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        // The server sends one event, then waits for release files that come only after `net` ended.
        let result = try await ProcessRunner.net(["get", "--transport", transport, "--stream", "--timeout", "3",
                                                  "\(base)/events?dir=\(scratch.url.path)"])
        for index in 1...2 { _ = FileManager.default.createFile(atPath: scratch.path("release-\(index)"), contents: nil) }
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.output.contains("{\"event\":\"message\",\"data\":\"hello\"}"), "\(result.output)")
        #expect(result.standardError.contains("timed out") && result.standardError.contains("--timeout"), "\(result.standardError)")
    }

    @Test("--body prints the body alone, byte for byte, on both transports; the exit status still tells the class", arguments: ["ahc", "urlsession"])
    func bodyOnly(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let bytes = try await ProcessRunner.net(["get", "--transport", transport, "-b", "\(base)/bytes/3000"])
        #expect(bytes.status == 0, "\(bytes.standardError)")
        #expect(bytes.standardOutput == Data((0..<3000).map { UInt8($0 % 251) }))
        let json = try await ProcessRunner.net(["get", "--transport", transport, "--body", "\(base)/status/404"])
        #expect(json.status == 4)
        #expect(json.output == #"{"status": 404}"#, "\(json.output)")  // as the server wrote it, not re-indented
    }

    @Test("A URL without a scheme whose query holds a URL gets http:// in front")
    func schemeOnlyAtTheStart() async throws {
        let result = try await ProcessRunner.net(["get", "example.com/login?next=http://x", "--curl"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.contains("http://example.com/login?next=http://x"), "\(result.output)")
    }
}
