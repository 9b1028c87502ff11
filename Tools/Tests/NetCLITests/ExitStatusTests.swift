import Foundation
import Testing

/// Exit statuses and their one-line messages.
@Suite("net exit statuses")
struct ExitStatusTests {
    @Test("4xx exits 4 and 5xx exits 5, printing the response")
    func httpErrors() async throws {
        let base = try await EchoServer.shared.baseURL()
        for (path, status, line) in [("/status/404", Int32(4), "HTTP 404 Not Found"), ("/status/500", 5, "HTTP 500 Internal Server Error"), ("/status/418", 4, "HTTP 418")] {
            let result = try await ProcessRunner.net(["get", base + path])
            #expect(result.status == status, "\(path)")
            #expect(result.output.hasPrefix(line), "\(path): \(result.output)")
            #expect(result.standardError.isEmpty, "\(path): \(result.standardError)")
        }
    }

    @Test("A refused connection exits 1 with one line on stderr")
    func refused() async throws {
        // A port nothing listens on: bind one, read its number, close it.
        let result = try await ProcessRunner.net(["get", "http://127.0.0.1:\(try #require(try closedLoopbackPorts(1).first))/"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.standardError.hasPrefix("net: ") && result.standardError.contains("cannot connect"))
        #expect(result.standardError.filter { $0 == "\n" }.count == 1)
    }

    @Test("Usage mistakes exit 2 with one line naming the mistake", arguments: [
        (["get"], "url"),
        (["fetch", "http://x"], "fetch"),
        (["get", "http://127.0.0.1:9/", "nonsense"], "\"nonsense\""),
        (["post", "http://127.0.0.1:9/", "n:=not json"], "not JSON"),
        (["post", "http://127.0.0.1:9/", "tag=a", "tag:=2"], "\"tag\" is given twice"),
        (["post", "http://127.0.0.1:9/", "f@/nonexistent/file"], "/nonexistent/file"),
        (["get", "--timeout", "-1", "http://127.0.0.1:9/"], "--timeout"),
        (["get", "--timeout", "soon", "http://127.0.0.1:9/"], "soon"),
        (["get", "--retry", "-2", "http://127.0.0.1:9/"], "--retry"),
        (["get", "http://127.0.0.1:9/", "Bad Header:x"], "Bad Header"),
        (["get", "http://127.0.0.1:9/", "X-A:line\nbreak"], "X-A"),
        (["post", "--form", "http://127.0.0.1:9/", "n:=1"], "--form"),
        (["get", "http://exa mple.com/"], "exa mple.com"),
        (["get", "http://127.0.0.1:99999/"], "99999"),
        (["get", ":70000/x"], "70000"),
        (["get", "--timeout", "1e10", "http://127.0.0.1:9/"], "--timeout"),
        (["get", "--timeout", "inf", "http://127.0.0.1:9/"], "--timeout"),
        (["get", "--timeout", "1e-10", "http://127.0.0.1:9/"], "at least 0.001 seconds"),
        (["get", "--transport", "ahc", "--proxy", "http://[::1", "http://127.0.0.1:9/"], "--proxy"),
        (["get", "--transport", "ahc", "--cert", "/nonexistent/client.pem", "https://127.0.0.1:9/"], "/nonexistent/client.pem"),
        (["get", "--transport", "ahc", "--cert", #filePath, "--key", "/nonexistent/client.key", "https://127.0.0.1:9/"], "/nonexistent/client.key"),
        (["head", "http://127.0.0.1:9/", "--download", "/tmp/net-head-body"], "HEAD"),
        (["get", "http://127.0.0.1:9/", "Authorization:Basic eA==", "--bearer", "T"], "--bearer and an Authorization"),
        (["get", "--body", "--verbose", "http://127.0.0.1:9/"], "--body"),
        (["post", "http://127.0.0.1:9/", "--download", "/tmp/net-post-body", "--continue"], "POST"),
        (["get", "http://127.0.0.1:9/", "--download", "/tmp"], "/tmp is a directory"),
        (["get", "http://127.0.0.1:9/", "--download", "/nonexistent/folder/file"], "/nonexistent/folder does not exist"),
        // A name no folder here can hold failed only once the server had answered.
        (["get", "http://127.0.0.1:9/", "--download", "/tmp/" + String(repeating: "n", count: 256)], "its name is 256 bytes"),
        (["get", "http://127.0.0.1:9/", "--download", "/tmp/" + String(repeating: "n", count: 250), "--continue"], "NAME.part.json"),
        // Replaced by a rename when complete, /dev/null would become a regular file (as root).
        (["get", "http://127.0.0.1:9/", "--download", "/dev/null"], "/dev/null is not a regular file"),
        // A link into /proc, which can lead to a file (standard output redirected to one).
        (["get", "http://127.0.0.1:9/", "--download", "/dev/stdout"], "/dev/stdout is not a regular file"),
        (["get", "http://127.0.0.1:9/", "--download", "//dev/stdout"], "//dev/stdout is not a regular file"),
        // Read bounded and without waiting: neither endless bytes nor a pipe nobody writes.
        (["get", "http://127.0.0.1:9/", "--session", "/dev/zero"], "/dev/zero is not a regular file"),
        (["get", "--transport", "ahc", "--cacert", "/dev/zero", "https://127.0.0.1:9/"], "/dev/zero is not a regular file"),
    ])
    func usage(_ arguments: [String], _ mentioned: String) async throws {
        let result = try await ProcessRunner.net(arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(result.output.isEmpty)
        #expect(result.standardError.hasPrefix("net: "))
        #expect(result.standardError.contains(mentioned), "\(result.standardError)")
        #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(result.standardError)")
    }

    @Test("--download to the longest name a file can have is saved under it (the hidden files it goes through first have shorter names)")
    func longestDownloadName() async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let name = String(repeating: "n", count: 255)
        let result = try await ProcessRunner.net(["get", base + "/bytes/3000", "--download", scratch.path(name)])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("")) == [name])
        #expect(FileManager.default.contents(atPath: scratch.path(name))?.count == 3000)
    }

    @Test("--download through a chain of links, one relative, into /proc is a usage error; a link to an ordinary file is followed as before")
    func downloadThroughLinks() async throws {
        let scratch = try ScratchDirectory()
        let depth = scratch.url.standardizedFileURL.pathComponents.count - 1  // up to /
        let relative = String(repeating: "../", count: depth) + "proc/self/fd/1"
        try FileManager.default.createSymbolicLink(atPath: scratch.path("out"), withDestinationPath: relative)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("chain"), withDestinationPath: "out")
        for name in ["out", "chain"] {
            let result = try await ProcessRunner.net(["get", "http://127.0.0.1:9/", "--download", scratch.path(name)])
            #expect(result.status == 2 && result.standardError.contains("is not a regular file"), "\(name): \(result.standardError)")
        }
        try Data().write(to: scratch.url.appendingPathComponent("plain"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("toPlain"), withDestinationPath: "plain")
        let followed = try await ProcessRunner.net(["get", "http://127.0.0.1:9/", "--download", scratch.path("toPlain")])
        #expect(followed.status == 1, "\(followed.standardError)")  // past the checks: the refused connection
    }

    @Test("--help prints the commands and exits 0")
    func help() async throws {
        let result = try await ProcessRunner.net(["--help"])
        #expect(result.status == 0)
        for command in ["get", "post", "put", "patch", "delete", "head", "options", "reach"] {
            #expect(result.output.contains("  \(command) "), "\(command)")
        }
    }
}

/// Exit statuses and notes for what a server can send that is not a plain answer.
@Suite("net: odd statuses, unfollowable redirects, a full disk")
struct OddResponseTests {
    @Test("A status outside 100-599 exits 1 with a note on stderr", arguments: ["urlsession", "ahc"])
    func notHTTPStatus(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", "--transport", transport, base + "/status/999"])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.output.hasPrefix("HTTP 999"), "\(result.output)")
        #expect(result.standardError.contains("999") && result.standardError.contains("not an HTTP status"), "\(result.standardError)")
    }

    @Test("A redirect to a scheme net does not follow is printed, and stderr says why it stopped", arguments: [
        "ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/",
    ])
    func unfollowableRedirect(_ location: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let encoded = try #require(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let result = try await ProcessRunner.net(["get", base + "/redirect-to?location=" + encoded])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.hasPrefix("HTTP 302"))
        #expect(result.standardError.contains("not following the redirect to \(location)"), "\(result.standardError)")
        #expect(result.standardError.filter { $0 == "\n" }.count == 1)
        // With --no-follow the user asked for the 3xx itself: no note.
        let asked = try await ProcessRunner.net(["get", "--no-follow", base + "/redirect-to?location=" + encoded])
        #expect(asked.status == 0 && asked.standardError.isEmpty, "\(asked.standardError)")
    }

    @Test("A redirect to port 99999 ends with an error naming the port, on both transports", arguments: ["urlsession", "ahc"])
    func redirectToBadPort(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", "--transport", transport, base + "/redirect-to?location=http%3A%2F%2F127.0.0.1%3A99999%2F"])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("the port \"99999\" is not a number from 1 to 65535"), "\(result.standardError)")
    }

    @Test("Hostile JSON nested 500 deep prints within a small multiple of its size")
    func hostileJSON() async throws {
        let base = try await EchoServer.shared.baseURL()
        let result = try await ProcessRunner.net(["get", base + "/nested?depth=500&bytes=2000000"])
        #expect(result.status == 0, "\(result.standardError)")
        let size = result.output.utf8.count
        #expect(size > 1_900_000 && size < 4 * 2_000_000 + 10_000, "\(size) bytes of output")
        // Ordinary JSON is still re-indented.
        let pretty = try await ProcessRunner.net(["get", base + "/nested?depth=2&bytes=20"])
        #expect(pretty.output.contains("[\n  [\n    []\n  ],\n"), "\(pretty.output)")
    }

    @Test("A full disk during --download names the destination, not a hidden file, and leaves nothing", arguments: ["urlsession", "ahc"])
    func diskFull(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let mountPoint = scratch.path("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // A 256 KiB filesystem of our own (root, as the namespace tests need anyway).
        let mounted = try await ProcessRunner.run("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mount tmpfs: \(mounted.standardError)")
        defer {
            _ = umount(mountPoint)
            withExtendedLifetime(scratch) {}  // the directory outlives the mount
        }
        let destination = mountPoint + "/out.bin"
        let result = try await ProcessRunner.net(["get", "--transport", transport, base + "/bytes/3000000", "--download", destination])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains(destination) && !result.standardError.contains(".out.bin."), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == [], "left behind")
    }
}

/// Decompression bombs and `--max-size`.
@Suite("net: response size limits")
struct ResponseLimitTests {
    @Test("A gzip bomb is stopped at 100x with exit 1 and nothing saved; --max-size none lifts it", arguments: ["urlsession", "ahc"])
    func gzipBomb(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let destination = scratch.path("bomb.bin")
        let stopped = try await ProcessRunner.net(["get", "--transport", transport, base + "/gzip-bomb", "--download", destination])
        #expect(stopped.status == 1, "\(stopped.standardError)")
        #expect(stopped.standardError.contains("100 times its compressed size"), "\(stopped.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == [], "left behind")

        let inMemory = try await ProcessRunner.net(["get", "--transport", transport, base + "/gzip-bomb", "--max-size", "1M"])
        #expect(inMemory.status == 1 && inMemory.standardError.contains("1048576 bytes"), "\(inMemory.standardError)")

        let lifted = try await ProcessRunner.net(["get", "--transport", transport, base + "/gzip-bomb", "--download", destination, "--max-size", "none"])
        #expect(lifted.status == 0, "\(lifted.standardError)")
        let size = try FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int
        #expect(size == 64 << 20)
    }

    @Test("An error status's body downloaded past --max-size is not read back to be printed: a note says so", arguments: ["urlsession", "ahc"])
    func largeErrorBody(_ transport: String) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        for continuing in [false, true] {
            let destination = scratch.path("error-\(continuing).bin")
            let extra = continuing ? ["--continue"] : []
            let large = try await ProcessRunner.net(["get", "--transport", transport, base + "/status/500?size=2000000", "--download", destination, "--max-size", "1M"] + extra)
            #expect(large.status == 5, "\(large.standardError)")
            #expect(large.output.hasPrefix("HTTP 500") && !large.output.contains("eeee"), "\(large.output.prefix(200))")
            #expect(large.standardError.contains("is not shown") && large.standardError.contains("--max-size"), "\(large.standardError)")
            let small = try await ProcessRunner.net(["get", "--transport", transport, base + "/status/500?size=1000", "--download", destination, "--max-size", "1M"] + extra)
            #expect(small.status == 5 && small.output.contains(String(repeating: "e", count: 1000)), "\(small.standardError)")
            #expect(!FileManager.default.fileExists(atPath: destination), "an error body is printed, never saved as the file")
        }
    }

    @Test("--max-size takes a count with K, M or G, or none; anything else is a usage error", arguments: ["0", "-5", "12X", "lots", "9999999999G"])
    func badSizes(_ value: String) async throws {
        let result = try await ProcessRunner.net(["get", "--max-size", value, "http://127.0.0.1:9/"])
        #expect(result.status == 2 && result.standardError.contains("max-size"), "\(result.standardError)")
    }
}
