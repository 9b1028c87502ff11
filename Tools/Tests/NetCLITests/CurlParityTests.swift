import Foundation
import Testing

/// `--curl` prints a command that, run by the real curl through `/bin/sh`, makes the same request
/// as `net` itself: same method, path, query, headers given, body or form parts.
@Suite("net --curl against the real curl")
struct CurlParityTests {
    static let cases: [[String]] = [
        ["post", "/echo", "X-Trace:a b", "q==a b&c=d", "name=Ann 'A'", "age:=41"],
        ["put", "--form", "/echo/form", "a=1 2", "b=x&y+z", "c=$(id)"],
        ["delete", "/echo/items/1", "X-Request-ID:7"],
        ["get", "/echo/search", "q==[x]{y}", "empty=="],
        ["patch", "/echo/doc", "text=line one\nline two", "emoji=😀"],
        ["post", "/upload", "title=Hi", "photo@FILE1", "literal=@not-a-file", "doc@FILE2"],
        ["get", "/redirect", "X-Trace:followed"],  // net follows redirects: so must the command
    ]

    @Test("The printed command makes the same request", arguments: cases)
    func sameRequest(_ template: [String]) async throws {
        let base = try await EchoServer.shared.baseURL()
        let scratch = try ScratchDirectory()
        let file1 = try scratch.file("photo.png", count: 200_000)
        let file2 = try scratch.file("it's a \"doc\"; v2.txt", count: 1_000)
        let arguments = template.map { argument in
            argument.hasPrefix("/") ? base + argument
                : argument.replacingOccurrences(of: "FILE1", with: file1).replacingOccurrences(of: "FILE2", with: file2)
        }
        let sent = try await ProcessRunner.net(arguments)
        #expect(sent.status == 0, "\(sent.standardError)")
        let printed = try await ProcessRunner.net(arguments + ["--curl"])
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(printed.output.hasPrefix("curl ") && printed.output.filter { $0 == "\n" }.count == 1, "\(printed.output)")
        let replayed = try await ProcessRunner.run("/bin/sh", ["-c", "\(printed.output.dropLast()) --silent --show-error"])
        #expect(replayed.status == 0, "\(printed.output): \(replayed.standardError)")

        let byNet = try EchoedRequest(netOutput: sent.output)
        let byCurl = try EchoedRequest(netOutput: replayed.output)
        #expect(byCurl.method == byNet.method)
        #expect(byCurl.path == byNet.path)
        #expect(byCurl.query == byNet.query)
        for name in ["X-Trace", "X-Request-ID", "Authorization"] {
            #expect(byCurl.header(name) == byNet.header(name), "\(name)")
        }
        if let parts = byNet.parts {
            #expect(byCurl.parts == parts)
            #expect(parts.count == 4)
        } else {
            #expect(byCurl.header("Content-Type") == byNet.header("Content-Type"))
            #expect(byCurl.body == byNet.body && byCurl.bodySHA256 == byNet.bodySHA256)
        }
    }

    @Test("A header whose name says it is a credential is redacted like the ones the library knows; others are not")
    func credentialNamesRedacted() async throws {
        let printed = try await ProcessRunner.net([
            "get", "http://127.0.0.1:9/x", "PRIVATE-TOKEN:glpat-secret1", "X-Goog-Api-Key:secret2", "X-Vault-Token:secret3",
            "X-Key:secret4", "Keep-Alive:timeout=5", "X-Monkey:banana", "X-Session-Affinity:node-2", "Idempotency-Key:op-7", "--curl",
        ])
        #expect(printed.status == 0, "\(printed.standardError)")
        for secret in ["secret1", "secret2", "secret3", "secret4"] { #expect(!printed.output.contains(secret), "\(printed.output)") }
        #expect(printed.output.contains("PRIVATE-TOKEN: REDACTED") && printed.output.contains("X-Key: REDACTED"), "\(printed.output)")
        for kept in ["Keep-Alive: timeout=5", "X-Monkey: banana", "X-Session-Affinity: node-2", "Idempotency-Key: op-7"] {
            #expect(printed.output.contains(kept), "\(kept): \(printed.output)")
        }
    }

    @Test("A credential header a --session file keeps stays one: --curl redacts it on a later run")
    func sessionCredentialRedacted() async throws {
        let scratch = try ScratchDirectory()
        let session = scratch.path("s.json")
        try Data(#"{"headers": [["PRIVATE-TOKEN", "glpat-stored"], ["X-Trace", "t1"]], "cookies": []}"#.utf8)
            .write(to: URL(fileURLWithPath: session))
        let printed = try await ProcessRunner.net(["get", "http://127.0.0.1:9/x", "--session", session, "--curl"])
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(!printed.output.contains("glpat-stored") && printed.output.contains("PRIVATE-TOKEN: REDACTED"), "\(printed.output)")
        #expect(printed.output.contains("X-Trace: t1"), "\(printed.output)")
    }

    @Test("What net does beyond one request is in the command too: -L with net's limit unless --no-follow, and --retry")
    func behaviourRendered() async throws {
        let following = try await ProcessRunner.net(["get", "http://127.0.0.1:9/x", "--retry", "2", "--curl"])
        #expect(following.output.hasPrefix("curl --max-redirs '10' --retry '2' -L "), "\(following.output)")
        let notFollowing = try await ProcessRunner.net(["get", "http://127.0.0.1:9/x", "--no-follow", "--curl"])
        #expect(!notFollowing.output.contains(" -L") && !notFollowing.output.contains("--max-redirs") && !notFollowing.output.contains("--retry"),
                "\(notFollowing.output)")
    }

    @Test("A URL without a scheme is http: ':8080/items' is http://localhost:8080/items, 'example.com/x' is http://example.com/x")
    func shorthandURLs() async throws {
        let port = try await ProcessRunner.net(["get", ":8080/items", "--curl"])
        #expect(port.status == 0 && port.output.contains("'http://localhost:8080/items'"), "\(port.output)")
        let host = try await ProcessRunner.net(["get", "example.com/x", "--curl"])
        #expect(host.status == 0 && host.output.contains("'http://example.com/x'"), "\(host.output)")
    }

    @Test("Credentials are redacted in the printed command")
    func redacted() async throws {
        let printed = try await ProcessRunner.net([
            "get", "https://api.example.com/me", "--bearer", "s3cr3t-t0ken", "X-Api-Key:k3y-value", "api_key==q-secret",
        ] + ["--curl"])
        #expect(printed.status == 0)
        #expect(printed.output.contains("Bearer REDACTED"))
        for secret in ["s3cr3t-t0ken", "k3y-value", "q-secret"] {
            #expect(!printed.output.contains(secret), "\(secret) in \(printed.output)")
        }
    }
}
