import Foundation
import Testing

/// `--cacert`, `--cert`/`--key`/`--pass`, `--pinnedpubkey`, `--proxy` and `--noproxy` in curl's
/// spelling, against HTTPS servers on Python's `ssl` with a private CA, and a real tinyproxy.
@Suite("net: TLS and proxy options")
struct ConnectionOptionsTests {
    static let proxyUser = "cli-user"
    static let proxyPassword = "cli-pr0xy-s3cret"

    /// A failure is one line on standard error naming its cause, with exit status 1.
    static func expectOneLineFailure(_ result: Finished, mentioning words: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("net: ") && result.standardError.filter { $0 == "\n" }.count == 1,
                "\(result.standardError)", sourceLocation: sourceLocation)
        for word in words { #expect(result.standardError.contains(word), "\(result.standardError)", sourceLocation: sourceLocation) }
    }

    @Test("--cacert trusts a private CA; without it the certificate is refused: exit 1, the TLS cause in one line")
    func cacert() async throws {
        let server = try await ConnectionPeers.tlsServer()
        let trusted = try await ProcessRunner.net(["get", server, "--cacert", try await ConnectionPeers.file("ca.pem")])
        #expect(trusted.status == 0 && trusted.output.contains("tls ok"), "\(trusted.standardError)")
        Self.expectOneLineFailure(try await ProcessRunner.net(["get", server]), mentioning: ["TLS"])
        let unreadable = try await ProcessRunner.net(["get", server, "--cacert", "/nonexistent/ca.pem"])
        #expect(unreadable.status == 2 && unreadable.standardError.contains("--cacert"), "\(unreadable.standardError)")
    }

    @Test("--cert, --key and --pass present a client certificate; a wrong --pass is exit 1 naming the passphrase, never showing it")
    func clientCertificate() async throws {
        let server = try await ConnectionPeers.tlsServer(requiresClientCertificate: true)
        let common = ["get", server, "--cacert", try await ConnectionPeers.file("ca.pem"), "-v",
                      "--cert", try await ConnectionPeers.file("client.pem"), "--key", try await ConnectionPeers.file("client-encrypted.key")]
        let presented = try await ProcessRunner.net(common + ["--pass", "s3cret"])
        #expect(presented.status == 0 && presented.output.contains("net-test-client"), "\(presented.output) \(presented.standardError)")
        let wrong = try await ProcessRunner.net(common + ["--pass", "not-the-passphrase"])
        Self.expectOneLineFailure(wrong, mentioning: ["passphrase"])
        #expect(!wrong.standardError.contains("not-the-passphrase"))
        Self.expectOneLineFailure(try await ProcessRunner.net(["get", server, "--cacert", try await ConnectionPeers.file("ca.pem")]), mentioning: ["TLS"])
        // --curl shows the passphrase as REDACTED, never as given.
        let curl = try await ProcessRunner.net(common + ["--pass", "s3cret", "--curl"])
        #expect(curl.status == 0 && curl.output.contains("REDACTED") && !curl.output.contains("s3cret"), "\(curl.output)")
    }

    @Test("a --cacert past 16 MiB and a --session past 64 MiB are usage errors that name the limit; the session file stays")
    func localFileLimits() async throws {
        let scratch = try ScratchDirectory()
        // Sparse files: their size is what counts, and nothing is read past the limit.
        func sparse(_ name: String, size: Int) throws -> String {
            let path = scratch.path(name)
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
            return path
        }
        let bundle = try sparse("ca.pem", size: (16 << 20) + 1)
        let cacert = try await ProcessRunner.net(["get", "--transport", "ahc", "--cacert", bundle, "https://127.0.0.1:9/"])
        #expect(cacert.status == 2 && cacert.standardError.contains("larger than 16777216 bytes"), "\(cacert.standardError)")
        let session = try sparse("session.json", size: (64 << 20) + 1)
        let refused = try await ProcessRunner.net(["get", "http://127.0.0.1:9/", "--session", session])
        #expect(refused.status == 2 && refused.standardError.contains("larger than 67108864 bytes"), "\(refused.standardError)")
        #expect(try FileManager.default.attributesOfItem(atPath: session)[.size] as? Int == (64 << 20) + 1)
    }

    @Test("--pinnedpubkey: the server's own key passes, a rotation list passes, another key is exit 1 naming the host")
    func pinnedPublicKey() async throws {
        let server = try await ConnectionPeers.tlsServer()
        let ca = try await ConnectionPeers.file("ca.pem")
        let own = "sha256//" + (try await ConnectionPeers.text("server.pin"))
        let other = "sha256//" + (try await ConnectionPeers.text("other.pin"))
        let pinned = try await ProcessRunner.net(["get", server, "--cacert", ca, "--pinnedpubkey", own])
        #expect(pinned.status == 0 && pinned.output.contains("tls ok"), "\(pinned.standardError)")
        let rotation = try await ProcessRunner.net(["get", server, "--cacert", ca, "--pinnedpubkey", "\(other);\(own)"])
        #expect(rotation.status == 0, "\(rotation.standardError)")
        Self.expectOneLineFailure(try await ProcessRunner.net(["get", server, "--cacert", ca, "--pinnedpubkey", other]), mentioning: ["127.0.0.1", "pins"])
        let malformed = try await ProcessRunner.net(["get", server, "--pinnedpubkey", "sha256//not-base64"])
        #expect(malformed.status == 2 && malformed.standardError.contains("--pinnedpubkey"), "\(malformed.standardError)")
    }

    @Test("--proxy sends through tinyproxy; its password shows nowhere: not in -v, --curl, nor an error")
    func proxy() async throws {
        let tinyproxy = try await ConnectionPeers.Tinyproxy(username: Self.proxyUser, password: Self.proxyPassword)
        let base = try await EchoServer.shared.baseURL()
        let port = try #require(URL(string: base)?.port)
        let proxy = "http://\(Self.proxyUser):\(Self.proxyPassword)@127.0.0.1:\(tinyproxy.port)"
        let sent = try await ProcessRunner.net(["get", "\(base)/echo", "-v", "--proxy", proxy])
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(tinyproxy.tunnels(to: port) == 1, "\(tinyproxy.log())")
        #expect(!sent.output.contains(Self.proxyPassword) && !sent.standardError.contains(Self.proxyPassword))

        let curl = try await ProcessRunner.net(["get", "\(base)/echo", "--curl", "--proxy", proxy])
        #expect(curl.status == 0 && curl.output.contains("--proxy") && curl.output.contains("REDACTED"), "\(curl.output)")
        #expect(!curl.output.contains(Self.proxyPassword))

        let wrong = try await ProcessRunner.net(["get", "\(base)/echo", "--proxy", "http://\(Self.proxyUser):wr0ng-cli@127.0.0.1:\(tinyproxy.port)"])
        Self.expectOneLineFailure(wrong, mentioning: ["proxy", "127.0.0.1:\(tinyproxy.port)"])
        #expect(!wrong.standardError.contains("wr0ng-cli"))
    }

    @Test("without --proxy the environment's proxy is used, as curl does; --noproxy and --proxy \"\" bypass it")
    func environmentProxy() async throws {
        let tinyproxy = try await ConnectionPeers.Tinyproxy(username: Self.proxyUser, password: Self.proxyPassword)
        let base = try await EchoServer.shared.baseURL()
        let port = try #require(URL(string: base)?.port)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
        environment["http_proxy"] = "http://\(Self.proxyUser):\(Self.proxyPassword)@127.0.0.1:\(tinyproxy.port)"
        let viaEnvironment = try await ProcessRunner.net(["get", "\(base)/echo"], environment: environment)
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.standardError)")
        #expect(tinyproxy.tunnels(to: port) == 1, "\(tinyproxy.log())")
        let bypassed = try await ProcessRunner.net(["get", "\(base)/echo", "--noproxy", "127.0.0.1"], environment: environment)
        let direct = try await ProcessRunner.net(["get", "\(base)/echo", "--proxy", ""], environment: environment)
        #expect(bypassed.status == 0 && direct.status == 0, "\(bypassed.standardError) \(direct.standardError)")
        #expect(tinyproxy.tunnels(to: port) == 1, "a bypassed request went through the proxy: \(tinyproxy.log())")
    }

    @Test("with --transport urlsession the TLS and proxy options are usage errors, not ignored")
    func urlSessionRefuses() async throws {
        for arguments in [["--cacert", "/tmp/ca.pem"], ["--proxy", "http://127.0.0.1:3128"], ["--noproxy", "*"]] {
            let result = try await ProcessRunner.net(["get", "--transport", "urlsession", "http://127.0.0.1:9/"] + arguments)
            #expect(result.status == 2 && result.standardError.contains("--transport ahc"), "\(arguments): \(result.standardError)")
        }
    }
}
