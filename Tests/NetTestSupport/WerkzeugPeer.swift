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
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 64)
        while !line.contains(UInt8(ascii: "\n")) {
            let count = read(child.output, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw CommandFailed(description: "werkzeug_peer.py exited before printing its port: \(child.standardError)")
            }
            line.append(contentsOf: buffer[..<count])
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CommandFailed(description: "werkzeug_peer.py printed \(String(decoding: line, as: UTF8.self)) instead of a port")
        }
        process = child
        self.port = port
        return "http://127.0.0.1:\(port)"
    }
}
