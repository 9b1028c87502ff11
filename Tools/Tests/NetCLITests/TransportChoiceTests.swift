import Foundation
import Testing

/// `--transport urlsession|ahc`: both send the same requests and report failures the same way
/// (the rest of the CLI tests run with the default, AsyncHTTPClient on Linux).
@Suite("net --transport")
struct TransportChoiceTests {
    @Test("Both transports send the same JSON request, download the same bytes and fail alike", arguments: ["urlsession", "ahc"])
    func sameBehaviour(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let sent = try await ProcessRunner.net(["post", "--transport", transport, "\(base)/echo", "X-Trace:1", "q==a b", "name=Ann", "age:=41"])
        #expect(sent.status == 0, "\(sent.standardError)")
        let echoed = try EchoedRequest(netOutput: sent.output)
        #expect(echoed.method == "POST" && echoed.query == "q=a%20b" && echoed.header("X-Trace") == ["1"])
        #expect(echoed.body == #"{"name": "Ann", "age": 41}"#)

        let scratch = try ScratchDirectory()
        let downloaded = try await ProcessRunner.net(["get", "--transport", transport, "\(base)/bytes/1000000", "--download", scratch.path("out")])
        #expect(downloaded.status == 0, "\(downloaded.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("out"))).count == 1_000_000)

        let refused = try await ProcessRunner.net(["get", "--transport", transport, "http://127.0.0.1:9/"])
        #expect(refused.status == 1 && refused.standardError.contains("cannot connect"), "\(refused.standardError)")
        let notFound = try await ProcessRunner.net(["get", "--transport", transport, "\(base)/status/404"])
        #expect(notFound.status == 4)
    }

    @Test("--stream (-S) prints the body as it came, not pretty-printed, and cannot be combined with --download", arguments: ["urlsession", "ahc"])
    func stream(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let pretty = try await ProcessRunner.net(["get", "--transport", transport, "\(base)/echo"])
        let streamed = try await ProcessRunner.net(["get", "--transport", transport, "-S", "\(base)/echo"])
        #expect(streamed.status == 0, "\(streamed.standardError)")
        // The echo server writes its JSON on one line; without --stream net re-indents it.
        let lines = streamed.output.split(separator: "\n")
        #expect(lines.first == "HTTP 200 OK" && lines.count == 2, "\(streamed.output)")
        #expect(pretty.output.split(separator: "\n").count > 2)
        #expect(try EchoedRequest(netOutput: streamed.output).method == "GET")

        let bytes = try await ProcessRunner.net(["get", "--transport", transport, "--stream", "\(base)/bytes/3000000"])
        let expected = Data("HTTP 200 OK\n".utf8) + Data((0..<3_000_000).map { UInt8($0 % 251) })
        #expect(bytes.status == 0 && bytes.standardOutput == expected)

        let both = try await ProcessRunner.net(["get", "--stream", "--download", "x", "\(base)/echo"])
        #expect(both.status == 2 && both.standardError.contains("--stream"))
    }

    @Test("--stream on text/event-stream prints each event as one JSON line the moment it arrives", arguments: ["urlsession", "ahc"])
    func streamEvents(_ transport: String) async throws {
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (pid, output) = try await Self.spawnStreaming(transport, "/events", releasedIn: scratch)
        let expected = [
            "HTTP 200 OK",
            #"{"event":"message","data":"hello"}"#,
            #"{"event":"update","data":"a\n\"b\"","id":"7"}"#,
            #"{"event":"message","data":"café","id":"7"}"#,
        ]
        // The server writes the next event only once the previous one is in net's output: net
        // must have written (not buffered) each line as its event arrived. The limit catches a hang.
        let end = ContinuousClock.now + .seconds(60)
        for index in 1...2 {
            while ContinuousClock.now < end, (try? String(contentsOf: output, encoding: .utf8))?.split(separator: "\n").count ?? 0 < index + 1 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines == Array(expected.prefix(index + 1)), "before event \(index + 1)")
            #expect(FileManager.default.createFile(atPath: scratch.appendingPathComponent("release-\(index)").path, contents: nil))
        }
        let status = await ProcessRunner.wait(pid, limit: .seconds(60))
        #expect(status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8) == expected.joined(separator: "\n") + "\n")
    }

    @Test("--stream prints a plain body's chunks the moment they arrive", arguments: ["urlsession", "ahc"])
    func streamPlainBody(_ transport: String) async throws {
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (pid, output) = try await Self.spawnStreaming(transport, "/held", releasedIn: scratch)
        defer { _ = FileManager.default.createFile(atPath: scratch.appendingPathComponent("release-1").path, contents: nil) }  // a failed check leaves no handler waiting
        // The server sends the rest only once the first chunk is in net's output: net must have
        // written (not buffered) it as it arrived. The limit catches a hang.
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end, (try? String(contentsOf: output, encoding: .utf8)) != "HTTP 200 OK\nfirst\n" {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try String(contentsOf: output, encoding: .utf8) == "HTTP 200 OK\nfirst\n")
        #expect(FileManager.default.createFile(atPath: scratch.appendingPathComponent("release-1").path, contents: nil))
        let status = await ProcessRunner.wait(pid, limit: .seconds(60))
        #expect(status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8) == "HTTP 200 OK\nfirst\nsecond\n")
    }

    /// A new directory for a streaming test's output and the server's release files.
    static func scratchDirectory() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("net-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return scratch
    }

    /// Starts `net get --stream` of the echo server's `path`, which waits for release files in
    /// `scratch`, with its output going to `scratch/stdout`.
    static func spawnStreaming(_ transport: String, _ path: String, releasedIn scratch: URL) async throws -> (pid: pid_t, output: URL) {
        let base = try await EchoServer.shared.baseURL()
        let output = scratch.appendingPathComponent("stdout")
        let pid = try ProcessRunner.spawn(
            ProcessRunner.net, ["get", "--transport", transport, "--stream", "\(base)\(path)?dir=\(scratch.path)"],
            standardInput: "/dev/null", standardOutput: output.path, standardError: scratch.appendingPathComponent("stderr").path)
        return (pid, output)
    }

    @Test("--stream on an event stream with an endless line stops at 1 MiB with exit 1 and the reason, after the events before it", arguments: ["urlsession", "ahc"])
    func streamEndlessLine(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", "--transport", transport, "--stream", "\(base)/events/endless"])
        #expect(result.status == 1)
        #expect(result.output == "HTTP 200 OK\n{\"event\":\"message\",\"data\":\"first\"}\n", "\(result.output)")
        #expect(result.standardError.contains("a line ran past 1048576 bytes"), "\(result.standardError)")
    }

    @Test("An unknown transport is a usage error")
    func unknown() async throws {
        let result = try await ProcessRunner.net(["get", "--transport", "carrier-pigeon", "http://127.0.0.1:9/"])
        #expect(result.status == 2 && result.standardError.contains("carrier-pigeon"))
    }
}
