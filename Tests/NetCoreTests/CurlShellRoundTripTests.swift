import Foundation
import NetCore
import NetTestSupport
import Testing

/// Runs rendered curl commands through the real `/bin/sh` with a fake `curl` on `PATH` that
/// records its arguments and standard input, and checks they are exactly what was rendered and
/// exactly what the request holds.
@Suite("curl rendering survives /bin/sh")
struct CurlShellRoundTripTests {
    /// A `curl` shell function that writes each argument NUL-terminated, then stdin, defined in
    /// front of the command. A function rather than a script on `PATH`: executing a file written
    /// moments earlier fails with ETXTBSY when another test thread forks meanwhile, and `sh` would
    /// then run the real curl.
    final class FakeCurl: Sendable {
        let directory: URL
        static let function = #"curl() { for argument in "$@"; do printf '%s\0' "$argument"; done > "$FAKE_CURL_OUT.args"; cat > "$FAKE_CURL_OUT.stdin"; }; "#

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-fake-curl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Runs `command` in `/bin/sh` and returns what the fake curl received.
        func run(_ command: String) async throws -> (arguments: [String], standardInput: Data) {
            let out = directory.appendingPathComponent("out-\(UUID().uuidString)").path
            var environment = ProcessInfo.processInfo.environment
            environment["FAKE_CURL_OUT"] = out
            environment["HOME"] = "/nonexistent-home-for-tilde-expansion-check"
            _ = try await runProcessOffPool("/bin/sh", ["-c", Self.function + command], environment: environment)
            let argumentBytes = try Data(contentsOf: URL(fileURLWithPath: out + ".args"))
            var arguments = argumentBytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if arguments.last == "" { arguments.removeLast() }
            let standardInput = try Data(contentsOf: URL(fileURLWithPath: out + ".stdin"))
            return (arguments, standardInput)
        }
    }

    static func hostileStrings(count: Int, seed: UInt64, allowLineBreaks: Bool) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var alphabet = Array("'\"\\$`!*?[]{}();&|<>#~%^= \t-_.:/@,+aZ9é東🚀\u{202E}\u{200B}")
        if allowLineBreaks { alphabet += ["\n", "\r", "\u{1B}", "\u{7}"] }
        var strings = ["'", "''", "'\\''", "$(touch /tmp/net-pwned)", "`id`", "${HOME}", "~", "*", "-X", "--data", "@/etc/passwd", "a\\", "!!"]
        while strings.count < count {
            let length = Int.random(in: 1...40, using: &generator)
            strings.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }))
        }
        return strings
    }

    @Test("Hundreds of hostile headers, query values, paths and text bodies come back identical")
    func hostileText() async throws {
        let fake = try FakeCurl()
        let values = Self.hostileStrings(count: 300, seed: 7, allowLineBreaks: false)
        let bodies = Self.hostileStrings(count: 300, seed: 11, allowLineBreaks: true)
        let pathCharacters = Array("'$!;&()*,=~+@:-._aZ9")
        var generator = SeededGenerator(seed: 13)
        for (index, value) in values.enumerated() {
            let path = String((0..<8).map { _ in pathCharacters.randomElement(using: &generator) ?? "a" })
            let body = bodies[index]
            let request = try NetworkRequest(
                url: "https://x.test/\(path)", httpMethod: .post,
                headers: [.header(key: "X-Hostile", value: value), .header(key: "Authorization", value: value)],
                query: [.query(key: value, value: value)], httpBody: Data(body.utf8))
            let command = request.curlCommand(.unredacted)
            let received = try await fake.run(command.shellCommand)
            #expect(received.arguments == command.arguments, "argv changed for \(value.debugDescription)")
            #expect(received.standardInput == (command.standardInput ?? Data()))

            // And what curl received is the request itself.
            let headerArguments = zip(received.arguments, received.arguments.dropFirst()).filter { $0.0 == "-H" }.map(\.1)
            let trimmed = request.headers["X-Hostile"] ?? ""
            #expect(headerArguments.contains(trimmed.isEmpty ? "X-Hostile;" : "X-Hostile: \(trimmed)"))
            #expect(received.arguments.last == request.url.absoluteString)
            let sentBody = received.arguments.firstIndex(of: "--data-raw").map { Data(received.arguments[$0 + 1].utf8) } ?? received.standardInput
            #expect(sentBody == Data(body.utf8), "body changed for \(body.debugDescription)")
        }
    }

    @Test("Random binary bodies, NUL bytes included, arrive byte for byte")
    func binaryBodies() async throws {
        let fake = try FakeCurl()
        var generator = SeededGenerator(seed: 99)
        var bodies: [Data] = [Data([0]), Data([0, 0, 0]), Data("-n\u{0}".utf8), Data([0x2D, 0xFF]), Data((0...255).map { UInt8($0) }), Data("%s%n%d\\0\\n'".utf8)]
        while bodies.count < 60 {
            bodies.append(Data((0..<Int.random(in: 1...512, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        for body in bodies {
            let command = try NetworkRequest(url: "https://x.test/upload", httpMethod: .put, httpBody: body).curlCommand()
            let received = try await fake.run(command.shellCommand)
            #expect(received.arguments == command.arguments)
            let sent = received.arguments.firstIndex(of: "--data-raw").map { Data(received.arguments[$0 + 1].utf8) } ?? received.standardInput
            #expect(sent == body)
        }
    }

    @Test("Nothing in a hostile request runs a command")
    func noCommandExecution() async throws {
        let fake = try FakeCurl()
        let marker = fake.directory.appendingPathComponent("pwned").path
        // A quote followed by a combining mark is one Character but still a quote to the shell: the
        // fuzzer found that Character-based escaping let it close the quoting.
        let payloads = ["$(touch \(marker))", "`touch \(marker)`", "'; touch \(marker); '", "\"; touch \(marker); \"", "| touch \(marker)",
                        "'\u{301}; touch \(marker); echo '\u{6E8}", "x'\u{20DD} | touch \(marker) #"]
        for payload in payloads {
            let request = try NetworkRequest(
                url: "https://x.test", httpMethod: .post, headers: [.header(key: "X", value: payload)],
                query: [.query(key: "q", value: payload)], httpBody: Data(payload.utf8))
            _ = try await fake.run(request.curlCommand(.unredacted).shellCommand)
            #expect(!FileManager.default.fileExists(atPath: marker), "payload ran: \(payload)")
        }
    }
}
