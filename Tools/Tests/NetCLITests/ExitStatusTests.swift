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
        }
    }

    @Test("A refused connection exits 1 with one line on stderr")
    func refused() async throws {
        // A port nothing listens on: bind one, read its number, close it.
        let result = try await ProcessRunner.net(["get", "http://127.0.0.1:\(try unusedPort())/"])
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
        (["post", "http://127.0.0.1:9/", "f@/nonexistent/file"], "/nonexistent/file"),
        (["get", "--timeout", "-1", "http://127.0.0.1:9/"], "--timeout"),
        (["get", "--timeout", "soon", "http://127.0.0.1:9/"], "soon"),
        (["get", "--retry", "-2", "http://127.0.0.1:9/"], "--retry"),
        (["get", "http://127.0.0.1:9/", "Bad Header:x"], "Bad Header"),
        (["get", "http://127.0.0.1:9/", "X-A:line\nbreak"], "X-A"),
        (["post", "--form", "http://127.0.0.1:9/", "n:=1"], "--form"),
        (["get", "http://exa mple.com/"], "exa mple.com"),
    ])
    func usage(_ arguments: [String], _ mentioned: String) async throws {
        let result = try await ProcessRunner.net(arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(result.output.isEmpty)
        #expect(result.standardError.hasPrefix("net: "))
        #expect(result.standardError.contains(mentioned), "\(result.standardError)")
        #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(result.standardError)")
    }

    @Test("--help prints the commands and exits 0")
    func help() async throws {
        let result = try await ProcessRunner.net(["--help"])
        #expect(result.status == 0)
        for command in ["get", "post", "put", "patch", "delete", "head", "options", "reach"] {
            #expect(result.output.contains("  \(command) "), "\(command)")
        }
    }

    private func unusedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ProcessFailure(description: "cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
