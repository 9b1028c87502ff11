import Foundation

/// `Tests/Peers/werkzeug_peer.py`, one per test process, on a free loopback port: range requests,
/// `If-Range`, connection cuts and cookies answered by Werkzeug, not by Net. The script exits
/// when this process is gone.
package actor WerkzeugPeer {
    /// The peer of this test process.
    package static let shared = WerkzeugPeer()

    private var process: Subprocess?
    private var port: Int?

    /// `http://127.0.0.1:PORT`, starting the peer on first use.
    package func baseURL() throws -> String {
        if let port { return "http://127.0.0.1:\(port)" }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Peers/werkzeug_peer.py").path
        let child = try Subprocess("/usr/bin/env", ["python3", script])
        let line = try child.firstLineBlocking()
        guard let port = Int(line) else {
            throw CommandFailed(description: "werkzeug_peer.py printed \(line) instead of a port")
        }
        process = child
        self.port = port
        return "http://127.0.0.1:\(port)"
    }
}
