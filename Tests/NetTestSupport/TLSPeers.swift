import Foundation

/// The certificates of `Tests/Peers/tls_certificates.sh`, made once per test process by openssl,
/// and HTTPS servers on Python's `ssl` (`Tests/Peers/tls_peer.py`) that present them.
package enum TLSPeers {
    /// The directory holding the certificates (see the script for its files).
    package static func certificates() async throws -> URL {
        try await generated.value
    }

    /// The PEM text of `name` in the certificate directory (`ca.pem`, `client-encrypted.key`, …).
    package static func pem(_ name: String) async throws -> String {
        try String(contentsOf: await certificates().appendingPathComponent(name), encoding: .utf8)
    }

    /// openssl runs off Swift's cooperative pool, so tests waiting for it stall no other test.
    private static let generated = Task<URL, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("net-tls-\(UUID().uuidString)")
        _ = try await runProcessOffPool("/bin/sh", [peers.appendingPathComponent("tls_certificates.sh").path, directory.path])
        return directory
    }

    private static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers")

    /// An HTTPS server presenting `certificate` (a name from the script: `server`, `expired`,
    /// `wronghost`, `other`), requiring a client certificate from `client-ca` when
    /// `requiresClientCertificate`, and refusing TLS 1.3 when `maximumTLS12`.
    package final class Server {
        /// `https://127.0.0.1:PORT`.
        package let url: String
        /// The port it listens on.
        package let port: Int
        private let process: Subprocess  // its deinit ends the server

        /// Starts the server and returns once it listens.
        package init(certificate: String = "server", requiresClientCertificate: Bool = false, maximumTLS12: Bool = false) async throws {
            let directory = try await TLSPeers.certificates()
            var arguments = [peers.appendingPathComponent("tls_peer.py").path,
                             directory.appendingPathComponent("\(certificate).pem").path,
                             directory.appendingPathComponent("\(certificate).key").path]
            if requiresClientCertificate { arguments += ["--client-ca", directory.appendingPathComponent("client-ca.pem").path] }
            if maximumTLS12 { arguments += ["--max-tls", "1.2"] }
            (process, port) = try await Self.start(arguments)
            url = "https://127.0.0.1:\(port)"
        }

        /// `h2_status_peer.py`: HTTP/2 answered with `:status` `status` as given, HTTP/1.1 with
        /// 200 and `h1 ok`, presenting the `server` certificate.
        package init(http2Status status: String) async throws {
            let directory = try await TLSPeers.certificates()
            (process, port) = try await Self.start([peers.appendingPathComponent("h2_status_peer.py").path,
                                                    directory.appendingPathComponent("server.pem").path,
                                                    directory.appendingPathComponent("server.key").path, status])
            url = "https://127.0.0.1:\(port)"
        }

        private static func start(_ arguments: [String]) async throws -> (Subprocess, Int) {
            let child = try Subprocess("/usr/bin/env", ["python3"] + arguments)
            let line = try await child.firstLine()
            guard let port = Int(line) else { throw CommandFailed(description: "\(arguments[0]) printed \(line) instead of a port") }
            return (child, port)
        }
    }
}
