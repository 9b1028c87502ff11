import Foundation

/// The root package's TLS and proxy peers, for the CLI's `--cacert`, `--cert`, `--pinnedpubkey`,
/// `--proxy` and `--noproxy`: certificates made by `Tests/Peers/tls_certificates.sh`, HTTPS
/// servers on Python's `ssl` (`Tests/Peers/tls_peer.py`) and tinyproxy from Debian.
enum ConnectionPeers {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Tests/Peers").standardized

    /// The certificate directory, made once per test process.
    static func certificates() async throws -> URL { try await generated.value }

    /// The path of `name` in the certificate directory.
    static func file(_ name: String) async throws -> String { try await certificates().appendingPathComponent(name).path }

    /// The text of `name` in the certificate directory (a `.pin`, say).
    static func text(_ name: String) async throws -> String { try String(contentsOfFile: await file(name), encoding: .utf8) }

    private static let generated = Task<URL, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-cli-tls-\(UUID().uuidString)")
        let made = try await ProcessRunner.run("/bin/sh", [peers.appendingPathComponent("tls_certificates.sh").path, directory.path])
        guard made.status == 0 else { throw ProcessFailure(description: "tls_certificates.sh failed: \(made.standardError) (is openssl installed?)") }
        return directory
    }

    /// An HTTPS server presenting `certificate` (`server`, `other`, …), requiring a client
    /// certificate from `client-ca` when asked; returns `https://127.0.0.1:PORT`.
    static func tlsServer(certificate: String = "server", requiresClientCertificate: Bool = false) async throws -> String {
        var arguments = [peers.appendingPathComponent("tls_peer.py").path, try await file("\(certificate).pem"), try await file("\(certificate).key")]
        if requiresClientCertificate { arguments += ["--client-ca", try await file("client-ca.pem")] }
        return "https://127.0.0.1:\(try ProcessRunner.startPrintingPort("python3", arguments))"
    }

    /// tinyproxy on a free loopback port, requiring Basic credentials; stopped when released.
    final class Tinyproxy {
        let port: Int
        private let pid: pid_t
        private let logPath: String

        init(username: String, password: String) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-cli-proxy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            logPath = directory.appendingPathComponent("tinyproxy.log").path
            // A port found free can be taken before tinyproxy binds it: the outgoing connections
            // of the tests running beside this one draw their local ports from the same
            // ephemeral range. tinyproxy then exits at once ("Could not create listening
            // sockets", before it opens its log), and is started again on another port.
            var attempt = 1
            while true {
                let port = try Self.freePort()
                let pid = try Self.start(port: port, credentials: "\(username) \(password)", directory: directory, logPath: logPath)
                if try await Self.listens(port: port, pid: pid, directory: directory) {
                    (self.port, self.pid) = (port, pid)
                    return
                }
                let standardError = (try? String(contentsOfFile: directory.appendingPathComponent("stderr").path, encoding: .utf8)) ?? ""
                guard standardError.contains("Could not create listening sockets"), attempt < 5 else {
                    throw ProcessFailure(description: "tinyproxy exited before it listened on \(port): \(standardError)")
                }
                attempt += 1
            }
        }

        /// Starts tinyproxy on `port` with its configuration, log and standard error in `directory`.
        private static func start(port: Int, credentials: String, directory: URL, logPath: String) throws -> pid_t {
            let configuration = try String(contentsOf: peers.appendingPathComponent("tinyproxy.conf"), encoding: .utf8)
                .replacingOccurrences(of: "@PORT@", with: "\(port)")
                .replacingOccurrences(of: "@LOG@", with: logPath)
                .replacingOccurrences(of: "@CREDENTIALS@", with: credentials)
            let configurationPath = directory.appendingPathComponent("tinyproxy.conf").path
            try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
            return try ProcessRunner.spawn("/usr/bin/tinyproxy", ["-d", "-c", configurationPath], standardInput: "/dev/null",
                                           standardOutput: "/dev/null", standardError: directory.appendingPathComponent("stderr").path)
        }

        /// Polls until tinyproxy accepts connections on `port` (`true`) or has exited (`false`,
        /// reaped); one that neither listens nor exits fails after 20 s.
        private static func listens(port: Int, pid: pid_t, directory: URL) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(20)
            while !accepts(port: port) {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { return false }
                guard ContinuousClock.now < deadline else {
                    kill(pid, SIGTERM)
                    waitpid(pid, &status, 0)
                    throw ProcessFailure(description: "tinyproxy did not listen on \(port) within 20 s")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return true
        }

        deinit {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        /// Everything it has logged so far.
        func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        /// How many `CONNECT` tunnels to `port` it was asked for.
        func tunnels(to port: Int) -> Int { log().components(separatedBy: "CONNECT 127.0.0.1:\(port) ").count - 1 }

        private static func freePort() throws -> Int {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
            }
            guard bound else { throw ProcessFailure(description: "no free port: \(String(cString: strerror(errno)))") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        private static func accepts(port: Int) -> Bool {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = loopback(port: port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }

        private static func loopback(port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            return address
        }
    }
}
