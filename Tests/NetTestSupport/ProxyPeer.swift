import Foundation

/// A real proxy from Debian on a free loopback port, configured from `Tests/Peers`: tinyproxy
/// (HTTP and `CONNECT`, with Basic credentials) or Dante (SOCKS5). Its log tells the tests
/// which connections it made. `.ci/run` installs both packages.
package final class ProxyPeer {
    /// The two proxies.
    package enum Kind {
        /// tinyproxy, requiring the Basic credentials `username:password`.
        case tinyproxy(username: String, password: String)
        /// Dante, with no authentication.
        case dante
        /// Dante, requiring SOCKS5's username/password method (RFC 1929) with
        /// ``socksUsername`` and ``socksPassword``. Dante checks them against the system's
        /// accounts, so the peer creates that account (without a home or a shell) when it is
        /// missing: it needs root, which the tests and CI run as.
        case danteWithCredentials
    }

    /// The SOCKS5 account of ``Kind/danteWithCredentials``.
    package static let socksUsername = "net-socks-test"
    /// Its password.
    package static let socksPassword = "s0cks-s3cret"

    /// The port it listens on, on 127.0.0.1.
    package let port: Int
    private let logPath: String
    private let process: Subprocess  // its deinit ends the proxy

    /// Starts the proxy and returns once it accepts connections.
    package init(_ kind: Kind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers")
        let log = directory.appendingPathComponent("proxy.log").path
        let (template, executable, arguments): (String, String, (String) -> [String]) = switch kind {
        case .tinyproxy: ("tinyproxy.conf", "/usr/bin/tinyproxy", { ["-d", "-c", $0] })
        case .dante: ("danted.conf", "/usr/sbin/danted", { ["-f", $0, "-N", "1"] })
        case .danteWithCredentials: ("danted-credentials.conf", "/usr/sbin/danted", { ["-f", $0, "-N", "1"] })
        }
        if case .danteWithCredentials = kind { try await Self.createSOCKSAccount() }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw CommandFailed(description: "\(executable) is missing: install tinyproxy and dante-server (.ci/run does)")
        }
        let configuration = directory.appendingPathComponent(template).path
        // A port found closed can be taken before the proxy binds it: the outgoing connections of
        // the tests running beside this one draw their local ports from the same ephemeral range.
        // The proxy then exits at once (tinyproxy: "Could not create listening sockets") and is
        // started again on another port.
        var attempt = 1
        while true {
            let port = try LocalPorts.closed()
            var text = try String(contentsOf: peers.appendingPathComponent(template), encoding: .utf8)
            text = text.replacingOccurrences(of: "@PORT@", with: "\(port)").replacingOccurrences(of: "@LOG@", with: log)
            if case .tinyproxy(let username, let password) = kind {
                text = text.replacingOccurrences(of: "@CREDENTIALS@", with: "\(username) \(password)")
            }
            try text.write(toFile: configuration, atomically: true, encoding: .utf8)
            let child = try Subprocess(executable, arguments(configuration))
            if try await Self.listens(port: port, child: child) {
                self.port = port
                self.logPath = log
                self.process = child
                return
            }
            guard attempt < 5 else {
                throw CommandFailed(description: "the proxy exited before it listened on \(port), \(attempt) times: \(child.standardError)")
            }
            attempt += 1
        }
    }

    /// The system account Dante checks ``Kind/danteWithCredentials``'s credentials against.
    private static func createSOCKSAccount() async throws {
        if (try? await runProcessOffPool("/usr/bin/id", ["-u", socksUsername])) == nil {
            _ = try await runProcessOffPool("/usr/sbin/useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", socksUsername])
        }
        _ = try await runProcessOffPool("/usr/sbin/chpasswd", [], input: Data("\(socksUsername):\(socksPassword)\n".utf8))
    }

    /// Everything the proxy has logged so far.
    package func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Polls until a connection to the port succeeds (`true`) or the proxy has exited (`false`);
    /// one that neither listens nor exits fails the test after ``TestTiming/hangGuard`` (with one
    /// last look past it) instead of hanging it.
    private static func listens(port: Int, child: Subprocess) async throws -> Bool {
        let deadline = ContinuousClock.now + TestTiming.hangGuard
        while true {
            let expired = ContinuousClock.now >= deadline
            if LocalPorts.accepts(port: port) { return true }
            if child.hasExited { return false }
            if expired { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CommandFailed(description: "the proxy did not listen on \(port): \(child.standardError)")
    }
}
