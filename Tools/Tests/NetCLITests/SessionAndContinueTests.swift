import Foundation
import Net
@testable import NetCLI
import Testing

/// `--continue` and `--session` as a user meets them: `net` runs one after another against
/// Werkzeug (`Tests/Peers/werkzeug_peer.py`), which cuts bodies where told and sets cookies.
@Suite("net --continue and --session")
struct SessionAndContinueTests {
    @Test("an interrupted --download --continue keeps FILE.part and exits 1; the next run finishes it", arguments: ["ahc", "urlsession"])
    func continueDownload(transport: String) async throws {
        let base = try await EchoServer.werkzeug.baseURL()
        let scratch = try ScratchDirectory()
        let name = "cli-\(transport)-\(UUID().uuidString.prefix(8))"
        let url = "\(base)/file/\(name)?size=100000&cuts=40000"
        let destination = scratch.path("data.bin")

        let first = try await ProcessRunner.net(["get", url, "--download", destination, "--continue", "--transport", transport])
        #expect(first.status == 1, "\(first.standardError)")
        #expect(try scratch.contents() == ["data.bin.part", "data.bin.part.json"])
        #expect(first.standardError.contains("kept in \(destination).part; run again with --continue"), "\(first.standardError)")

        // Each run keeps more (over AsyncHTTPClient a run may lose the bytes it had buffered when
        // the cut came, and be cut at the same point again), until one finishes.
        var kept = try FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int ?? 0
        var last = first
        for _ in 0..<20 where last.status != 0 {
            last = try await ProcessRunner.net(["get", url, "--download", destination, "--continue", "--transport", transport])
            guard last.status != 0 else { break }
            let now = try FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int ?? 0
            try #require(last.status == 1 && now > kept, "a run kept \(now) bytes after \(kept): \(last.standardError)")
            kept = now
        }
        #expect(last.status == 0, "\(last.standardError)")
        #expect(last.output.hasPrefix("HTTP 206 "))
        #expect(last.standardError.contains("(continued from the partial file)"))
        #expect(try scratch.contents() == ["data.bin"])
        let whole = try await ProcessRunner.run("curl", ["-sS", "\(base)/content/\(name)?size=100000"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == whole.standardOutput)
    }

    @Test("--session saves to the longest file name, through a staging file whose name fits")
    func sessionLongestName() async throws {
        let echo = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let file = scratch.path(String(repeating: "s", count: 255))
        let result = try await ProcessRunner.net(["get", "\(echo)/echo", "X-Team:blue", "--session", file])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("")) == [URL(fileURLWithPath: file).lastPathComponent])
        #expect(String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self).contains("X-Team"))
    }

    @Test("a session holding the fullest jar servers can fill (3,000 cookies of 4 KiB, 1 KiB paths, all escaped) is read and saved again")
    func fullestSession() async throws {
        let echo = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let file = scratch.path("full.json")
        // 50 cookies per domain (the jar's limit) on 60 domains; every character one JSON escapes.
        let expires = Date().addingTimeInterval(30 * 86_400)
        let cookies = (0..<3_000).map { index in
            NetworkCookie(name: "c\(index % 50)", value: String(repeating: "\"", count: 4_096 - "c\(index % 50)".count),
                          domain: "d\(index / 50).example", path: String(repeating: "/", count: 1_024), expires: expires)
        }
        try SessionFile(headers: [], cookies: cookies).save(to: file)
        let written = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(written > LocalFile.limit, "the file is past the 16 MiB read limit of other files: \(written) bytes")
        let result = try await ProcessRunner.net(["get", "\(echo)/echo", "--session", file])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try SessionFile.load(file).cookies.count == 3_000)
    }

    @Test("a session that would pass 64 MiB is not saved: the old file stays as it was, no staging file is left")
    func oversizedSessionNotSaved() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.path("s.json")
        try SessionFile(headers: [["X-Team", "blue"]]).save(to: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let huge = SessionFile(headers: [["X-Big", String(repeating: "x", count: SessionFile.maximumSize)]])
        #expect(throws: UsageError.self) { try huge.save(to: file) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("")) == ["s.json"])
    }

    @Test("--continue without --download is a usage error")
    func continueNeedsDownload() async throws {
        let result = try await ProcessRunner.net(["get", "http://127.0.0.1:9/", "--continue"])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("--continue resumes a --download FILE"))
    }

    @Test("--session keeps cookies and given headers between runs, privately; a header given again replaces its value")
    func session() async throws {
        let werkzeug = try await EchoServer.werkzeug.baseURL()
        let echo = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let file = scratch.path("session.json")

        let first = try await ProcessRunner.net([
            "get", "\(werkzeug)/cookies/set?sid=s3cret", "X-Team:blue", "If-None-Match:\"x\"", "Content-Language:en", "Cookie:manual=1", "--session", file,
        ])
        #expect(first.status == 0, "\(first.standardError)")
        struct Stored: Decodable { var headers: [[String]] }
        let stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(stored.headers == [["X-Team", "blue"]], "Content-*, If-* and Cookie fields are not kept")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let second = try await ProcessRunner.net(["get", "\(werkzeug)/cookies/echo", "--session", file])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.output.contains("\"cookie\": \"sid=s3cret\""), "\(second.output)")

        let third = try await ProcessRunner.net(["get", "\(echo)/echo", "--session", file])
        #expect(try EchoedRequest(netOutput: third.output).header("X-Team") == ["blue"])

        _ = try await ProcessRunner.net(["get", "\(echo)/echo", "X-Team:red", "--session", file])
        let fourth = try await ProcessRunner.net(["get", "\(echo)/echo", "--session", file])
        #expect(try EchoedRequest(netOutput: fourth.output).header("X-Team") == ["red"])

        // Another site gets no cookie from the session.
        let other = try await ProcessRunner.net(["get", werkzeug.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/cookies/echo", "--session", file])
        #expect(other.output.contains("\"cookie\": null"), "\(other.output)")
    }

    @Test("a damaged session file is refused, named, and left as it was")
    func damagedSession() async throws {
        let scratch = try ScratchDirectory()
        let file = scratch.path("session.json")
        try Data("not json".utf8).write(to: URL(fileURLWithPath: file))
        let result = try await ProcessRunner.net(["get", "http://127.0.0.1:9/", "--session", file])
        #expect(result.status != 0)
        #expect(result.standardError.contains("--session \(file) is not a session file"), "\(result.standardError)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not json")
    }
}
