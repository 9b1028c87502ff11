import Foundation
import Testing

/// `net` as a process against the echo server: every verb and item kind, downloads, redirects,
/// retries, timeouts.
@Suite("net verbs against a local server")
struct VerbTests {
    @Test("Each verb sends its method", arguments: ["get", "post", "put", "patch", "delete", "options"])
    func verb(_ verb: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net([verb, "\(base)/echo/\(verb)"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.hasPrefix("HTTP 200 OK\n"))
        let echoed = try EchoedRequest(netOutput: result.output)
        #expect(echoed.method == verb.uppercased() && echoed.path == "/echo/\(verb)")
        #expect(result.standardError.isEmpty)
    }

    @Test("HEAD prints the status line and, with -v, the headers, and no body")
    func head() async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["head", "-v", "\(base)/echo"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("HTTP 200 OK\n"))
        #expect(result.output.contains("Content-Type: application/json\n"))
        #expect(!result.output.contains("{"))
    }

    @Test("Headers, query items, JSON string and raw fields reach the server as written")
    func jsonItems() async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net([
            "post", "\(base)/echo", "X-Trace:a b", "q==a b&c=d+é", "name=Ann \"A\"", "age:=41", "tags:=[\"x\", 2]", "--bearer", "t0ken",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let echoed = try EchoedRequest(netOutput: result.output)
        #expect(echoed.header("X-Trace") == ["a b"])
        #expect(echoed.header("Authorization") == ["Bearer t0ken"])
        #expect(echoed.header("Content-Type") == ["application/json"])
        #expect(echoed.header("Accept") == ["application/json, */*;q=0.5"])
        #expect(echoed.query == "q=a%20b%26c%3Dd%2B%C3%A9")
        #expect(echoed.body == #"{"name": "Ann \"A\"", "age": 41, "tags": ["x", 2]}"#)
    }

    @Test("--form sends the fields URL-encoded")
    func form() async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["put", "--form", "\(base)/echo", "a=1 2", "b=x&y+z"])
        let echoed = try EchoedRequest(netOutput: result.output)
        #expect(echoed.method == "PUT")
        #expect(echoed.header("Content-Type") == ["application/x-www-form-urlencoded; charset=utf-8"])
        #expect(echoed.body == "a=1+2&b=x%26y%2Bz")
    }

    @Test("field@file streams a multipart upload of a 5 MB file, text fields beside it in order")
    func multipartUpload() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let file = try scratch.file("photo one.png", count: 5_000_000)
        let result = try await ProcessRunner.net(["post", "\(base)/upload", "title=Holiday", "photo@\(file)", "note=last"])
        #expect(result.status == 0, "\(result.standardError)")
        let echoed = try EchoedRequest(netOutput: result.output)
        #expect(echoed.header("Content-Type").first?.hasPrefix("multipart/form-data; boundary=") == true)
        let parts = try #require(echoed.parts)
        #expect(parts.map(\.name) == ["title", "photo", "note"])
        #expect(parts[1].filename == "photo one.png" && parts[1].contentType == "image/png")
        #expect(parts[1].length == 5_000_000)
        #expect(parts[1].sha256 == (try await sha256(ofFile: file)))
        #expect(parts[0].length == 7 && parts[2].length == 4)
    }

    @Test("--download writes the body to the file, leaving nothing else behind")
    func download() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let destination = scratch.path("out.bin")
        let result = try await ProcessRunner.net(["get", "\(base)/bytes/3000000", "--download", destination])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output == "HTTP 200 OK\n")
        #expect(result.standardError == "Saved 3.0 MB to \(destination)\n")  // no progress bar: stderr is not a terminal
        let expected = try scratch.file("expected.bin", count: 3_000_000)
        #expect(try await sha256(ofFile: destination) == (try await sha256(ofFile: expected)))
        #expect(try scratch.contents() == ["expected.bin", "out.bin"])
    }

    @Test("A failed download prints the error body and leaves an existing file untouched")
    func failedDownload() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let destination = scratch.path("keep.txt")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: destination))
        let result = try await ProcessRunner.net(["get", "\(base)/status/404", "--download", destination])
        #expect(result.status == 4)
        #expect(result.output.contains("\"status\": 404"))
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "precious")
        #expect(try scratch.contents() == ["keep.txt"])
    }

    @Test("Redirects are followed, or shown with --no-follow")
    func redirects() async throws {
        let base = try await EchoServer.shared.baseURL()
        let followed = try await ProcessRunner.net(["get", "\(base)/redirect"])
        #expect(followed.status == 0)
        #expect(try EchoedRequest(netOutput: followed.output).path == "/echo")
        let shown = try await ProcessRunner.net(["get", "--no-follow", "-v", "\(base)/redirect"])
        #expect(shown.status == 0)
        #expect(shown.output.hasPrefix("HTTP 302 Found\n") && shown.output.contains("Location: /echo\n"))
    }

    @Test("--retry N retries 503s with the library's policy; without it the 503 is the answer")
    func retry() async throws {
        let base = try await EchoServer.shared.baseURL()
        let key = UUID().uuidString
        let retried = try await ProcessRunner.net(["get", "--retry", "2", "\(base)/flaky/\(key)/2"])
        #expect(retried.status == 0, "\(retried.output)")
        #expect(retried.output.contains("\"attempt\": 3"))
        let once = try await ProcessRunner.net(["get", "\(base)/flaky/\(key)-b/1"])
        #expect(once.status == 5)
    }

    @Test("--timeout 0.5 ends a stalled request with status 1 and a one-line message")
    func timeout() async throws {
        let base = try await EchoServer.shared.baseURL()
        let started = ContinuousClock.now
        // The server answers after 45 s, before the tool's default 60 s deadline: a timeout that
        // did not fire would show as a success, and as a call of 45 s; the bound leaves room for
        // starting the tool on a busy machine.
        let result = try await ProcessRunner.net(["get", "--timeout", "0.5", "\(base)/sleep/45"])
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("net: ") && result.standardError.contains("timed out"))
        #expect(result.standardError.filter { $0 == "\n" }.count == 1)
    }
}

/// `--timings`, against a server that holds its head for a known time.
@Suite("net --timings")
struct TimingsTests {
    /// The milliseconds on a `  NAME 12.3 ms` or `NAME 12.3 ms` line of standard error.
    static func milliseconds(_ name: String, in output: String) -> [Double] {
        output.split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix(name + " "), text.hasSuffix(" ms") else { return nil }
            return Double(text.dropFirst(name.count + 1).dropLast(3))
        }
    }

    @Test("a head held 300 ms: first byte at 300 ms or later, body complete and total after it, unseen phases left out",
          arguments: ["urlsession", "ahc"])
    func delayedHead(transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", "--timings", "--transport", transport, "\(base)/sleep/0.3"])
        #expect(result.status == 0, "\(result.standardError)")
        let firstByte = try #require(Self.milliseconds("first byte", in: result.standardError).first, "\(result.standardError)")
        let complete = try #require(Self.milliseconds("body complete", in: result.standardError).first)
        let total = try #require(Self.milliseconds("total", in: result.standardError).first)
        #expect(firstByte >= 300 && firstByte <= complete && complete <= total)
        #expect(result.standardError.hasPrefix("attempt 1: GET \(base)/sleep/0.3 → 200\n"))
        for unseen in ["dns", "connect", "tls"] {
            #expect(Self.milliseconds(unseen, in: result.standardError).isEmpty)
        }
        #expect(result.output.hasPrefix("HTTP 200"), "the response still goes to standard output")
    }

    @Test("a retried call lists each attempt and the retry's reason; --stream times the body it prints")
    func retriedAndStreamed() async throws {
        let base = try await EchoServer.shared.baseURL()
        let key = UUID().uuidString
        let retried = try await ProcessRunner.net(["get", "--timings", "--retry", "1", "\(base)/flaky/\(key)/1"])
        #expect(retried.status == 0, "\(retried.standardError)")
        #expect(retried.standardError.contains("attempt 1: GET \(base)/flaky/\(key)/1 → 503\n"))
        #expect(retried.standardError.contains("retry after 503 by RetryPolicy\nattempt 2: GET \(base)/flaky/\(key)/1 → 200\n"))
        #expect(Self.milliseconds("first byte", in: retried.standardError).count == 2)
        let streamed = try await ProcessRunner.net(["get", "--timings", "--stream", "\(base)/sleep/0.3"])
        #expect(streamed.status == 0, "\(streamed.standardError)")
        let firstByte = try #require(Self.milliseconds("first byte", in: streamed.standardError).first, "\(streamed.standardError)")
        let total = try #require(Self.milliseconds("total", in: streamed.standardError).first)
        #expect(firstByte >= 300 && firstByte <= total)
    }
}

extension TimingsTests {
    @Test("a call that fails still reports its attempt and total, and a secret query value never shows")
    func failedAndRedacted() async throws {
        let closed = try await ProcessRunner.run("python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        let port = closed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try await ProcessRunner.net(["get", "--timings", "http://127.0.0.1:\(port)/x?access_token=hunter2"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("attempt 1: GET http://127.0.0.1:\(port)/x?access_token=REDACTED failed (cannotConnect)\n"),
                "\(result.standardError)")
        #expect(!Self.milliseconds("total", in: result.standardError).isEmpty)
        #expect(!result.standardError.contains("hunter2"))
    }
}
